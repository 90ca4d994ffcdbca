#!/bin/sh
echo "dictionnaire à jour"
