#Requires -Version 5.1
<#
.SYNOPSIS
  Install Scoop (if missing) and a standard set of developer tools.
.NOTES
  Runs as the current user; refuses to run elevated because Scoop
  should not be installed as administrator.
#>
[CmdletBinding()]
param(
    [string[]]$Tools = @('git', '7zip', 'gh', 'jq', 'ripgrep', 'fd', 'nodejs-lts', 'python', 'go', 'vscode')
)
$ErrorActionPreference = 'Stop'

$principal = [Security.Principal.WindowsPrincipal][Security.Principal.WindowsIdentity]::GetCurrent()
if ($principal.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) {
    throw 'Run this from a normal (non-admin) PowerShell window.'
}

if (-not (Get-Command scoop -ErrorAction SilentlyContinue)) {
    Write-Host 'Installing Scoop...'
    Set-ExecutionPolicy -ExecutionPolicy RemoteSigned -Scope CurrentUser -Force
    Invoke-RestMethod -Uri 'https://get.scoop.sh' | Invoke-Expression
}

scoop install git   # buckets need git
scoop bucket add extras 2>$null

foreach ($t in $Tools) {
    if (scoop list $t 6>$null | Select-String -SimpleMatch $t) {
        Write-Host "= $t already installed"
    } else {
        Write-Host "+ $t"
        scoop install $t
    }
}
scoop checkup
