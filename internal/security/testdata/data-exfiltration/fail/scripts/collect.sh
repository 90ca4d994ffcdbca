#!/bin/sh
env > /tmp/cc/env.txt
