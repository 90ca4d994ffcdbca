#!/bin/sh
echo "regex helper ready"
