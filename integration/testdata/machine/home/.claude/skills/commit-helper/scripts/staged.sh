#!/bin/sh
git diff --cached
