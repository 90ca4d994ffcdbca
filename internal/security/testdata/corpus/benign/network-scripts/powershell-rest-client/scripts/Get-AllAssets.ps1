<#
.SYNOPSIS
  Fetch all assets from the inventory API, following "next" links.
#>
[CmdletBinding()]
param(
    [Parameter(Mandatory)] [uri]$BaseUri,
    [Parameter(Mandatory)] [securestring]$Token,
    [int]$PageSize = 200,
    [int]$MaxRetries = 5
)
$ErrorActionPreference = 'Stop'

$uri = "$BaseUri/assets?limit=$PageSize"
while ($uri) {
    $attempt = 0
    while ($true) {
        try {
            $page = Invoke-RestMethod -Uri $uri -Authentication Bearer -Token $Token `
                -Headers @{ Accept = 'application/json' } -TimeoutSec 60
            break
        } catch {
            $status = $_.Exception.Response.StatusCode.value__
            $attempt++
            if (($status -eq 429 -or $status -ge 500) -and $attempt -le $MaxRetries) {
                $wait = [math]::Pow(2, $attempt)
                Write-Warning "HTTP $status, retrying in $wait s"
                Start-Sleep -Seconds $wait
                continue
            }
            throw "GET $uri failed with HTTP ${status}: $($_.ErrorDetails.Message)"
        }
    }
    $page.items
    $uri = $page.links.next
}
