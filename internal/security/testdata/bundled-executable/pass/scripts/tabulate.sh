#!/bin/sh
column -t "$1"
