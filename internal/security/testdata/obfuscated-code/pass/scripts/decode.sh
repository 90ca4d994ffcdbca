#!/bin/sh
base64 -d sample.b64 > sample.png
