package configs

import (
	"fmt"
	"strings"

	"github.com/knadh/koanf/providers/posflag"
	"github.com/spf13/pflag"

	"github.com/ccski/ccski/mcp/tools"
)

// flagType is how a flag takes its value.
type flagType int

const (
	flagString flagType = iota
	flagInt
	flagBool
	flagList  // comma-separated, repeatable (StringSlice)
	flagMulti // repeatable, one value each (StringArray)
)

// flagSpec is one flag: its name, the flattened key it sets and how.
type flagSpec struct {
	name string
	typ  flagType
	// key is the flattened key the flag sets; "" for none (--config).
	key string
	// fixed is the value a switch flag sets when given (--no-plugins
	// sets false, --all sets "all"); a switch given as false sets
	// nothing. nil for a flag whose value is the key's (--stateless=false
	// sets false).
	fixed any
	usage string
	// mcp marks the flags of `ccski mcp` (AddMCPFlags).
	mcp bool
}

// flagTable is the one list of the flags that set keys. AddFlags,
// AddMCPFlags, the flag layer of Load and the example ccski.yaml's
// comments read it. Their defaults are empty: a flag counts only when
// given, and then beats every other layer.
func flagTable() []flagSpec {
	return []flagSpec{
		{name: "config", usage: "read this config file instead of the nearest " + ProjectFile},
		{name: "include", typ: flagList, key: "include", usage: "show only skills matching these filters (comma-separated)"},
		{name: "exclude", typ: flagList, key: "exclude", usage: "hide skills matching these filters (comma-separated)"},
		{name: "all", typ: flagBool, key: "state", fixed: "all", usage: "show enabled and disabled skills"},
		{name: "disabled", typ: flagBool, key: "state", fixed: "disabled", usage: "show only disabled skills"},
		{name: "skill-dir", typ: flagMulti, key: "providers.custom.dirs", usage: "add a skill folder, DIR or DIR?scope=NAME (repeatable)"},
		{name: "user-dir", key: "user_dir", usage: "use this folder instead of the home folder for user skills"},
		{name: "workspace", key: "workspace", usage: "project folder (default: the current folder)"},
		{name: "no-plugins", typ: flagBool, key: "providers.marketplace.enabled", fixed: false, usage: "skip Claude plugin skills"},
		{name: "claude-plugins-file", key: "providers.marketplace.plugins_file", usage: "path of Claude's installed_plugins.json"},
		{name: "claude-plugins-root", key: "providers.marketplace.plugins_root", usage: "base folder for relative Claude plugin paths"},

		{mcp: true, name: "agent", key: "agent", usage: "the agent served: its skill switches decide what is off (claude, codex, gemini, copilot or all)"},
		{mcp: true, name: "transport", key: "mcp.transport", usage: "MCP transport: stdio, http or sse (default stdio)"},
		{mcp: true, name: "host", key: "mcp.host", usage: "address to listen on for http and sse (default 127.0.0.1)"},
		{mcp: true, name: "port", typ: flagInt, key: "mcp.port", usage: "port to listen on for http and sse (default 3000)"},
		{mcp: true, name: "refresh-interval", key: "mcp.refresh_interval", usage: `time between rescans, e.g. "30s", or milliseconds`},
		{mcp: true, name: "no-refresh", typ: flagBool, key: "mcp.refresh", fixed: false, usage: "never rescan: no periodic rescans and no watcher"},
		{mcp: true, name: "no-watch", typ: flagBool, key: "mcp.watch", fixed: false, usage: "do not watch skill folders for changes"},
		{mcp: true, name: "auth-token", key: "mcp.auth_token", usage: "bearer token HTTP clients must send"},
		{mcp: true, name: "stateless", typ: flagBool, key: "mcp.stateless", usage: "serve every HTTP client without a session (by default only 2026-07-28 clients)"},
		{mcp: true, name: "log-level", key: "mcp.log_level", usage: "log level: debug, info, warn or error (default info)"},
		{mcp: true, name: "log-format", key: "mcp.log_format", usage: "log format: text or json (default text)"},
		{mcp: true, name: "allowed-origin", typ: flagMulti, key: "mcp.allowed_origins", usage: "also accept this browser origin (repeatable)"},
		{mcp: true, name: "tools", typ: flagList, key: "mcp.tools", usage: "also serve these tools: " + strings.Join(tools.OptIn(), ", ")},
		{mcp: true, name: "catalog", typ: flagInt, key: "mcp.catalog", usage: "character budget of the skill tool's list of skills; 0: no budget (default 16000)"},
		{mcp: true, name: "skill-prompts", typ: flagBool, key: "mcp.skill_prompts", fixed: true, usage: "also serve every skill as an MCP prompt"},
	}
}

// CommandFlag is the pflag annotation of a command's own flag that shares
// its name with a flag of the table (enable's --agent, a list of agents to
// switch, is not ccski mcp's --agent): Load leaves it alone.
const CommandFlag = "ccski-command-flag"

// AddFlags registers the discovery flags shared by every command. --config
// is read by the caller and passed to Load as Options.ConfigFile.
func AddFlags(fs *pflag.FlagSet) { addFlags(fs, false) }

// AddMCPFlags registers the flags of `ccski mcp`.
func AddMCPFlags(fs *pflag.FlagSet) { addFlags(fs, true) }

func addFlags(fs *pflag.FlagSet, mcp bool) {
	for _, f := range flagTable() {
		if f.mcp != mcp {
			continue
		}
		switch f.typ {
		case flagString:
			fs.String(f.name, "", f.usage)
		case flagInt:
			fs.Int(f.name, 0, f.usage)
		case flagBool:
			fs.Bool(f.name, false, f.usage)
		case flagList:
			fs.StringSlice(f.name, nil, f.usage)
		case flagMulti:
			fs.StringArray(f.name, nil, f.usage)
		}
	}
}

// flagKey returns the flattened key a flag sets and, for flags that set a
// fixed value when given (--all, --no-plugins, ...), that value. It
// returns "" for flags that map to no key.
func flagKey(name string) (key string, fixed any) {
	for _, f := range flagTable() {
		if f.name == name {
			return f.key, f.fixed
		}
	}
	return "", nil
}

// flagNote says which flags set key, for the example ccski.yaml: "Flag:
// --include (comma-separated)." or "Flags: --all (state all), --disabled
// (state disabled)."; "" when none does.
func flagNote(key string) string {
	var parts []string
	for _, f := range flagTable() {
		if f.key != key {
			continue
		}
		p := "--" + f.name
		switch {
		case f.fixed == false:
			p += " turns it off"
		case f.fixed == true:
		case f.fixed != nil:
			p += fmt.Sprintf(" (%s %v)", key[strings.LastIndex(key, ".")+1:], f.fixed)
		case f.typ == flagList:
			p += " (comma-separated)"
		case f.typ == flagMulti:
			p += ", repeatable"
		}
		parts = append(parts, p)
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return "Flag: " + parts[0] + "."
	}
	return "Flags: " + strings.Join(parts, ", ") + "."
}

// flagValue returns the key and value a changed flag sets, or "" when it
// sets nothing. A switch flag (--all, --no-plugins, ...) given as false
// sets nothing, so that --no-plugins=false leaves the config alone.
func flagValue(fs *pflag.FlagSet, f *pflag.Flag) (string, any) {
	key, fixed := flagKey(f.Name)
	if key == "" {
		return "", nil
	}
	val := posflag.FlagVal(fs, f)
	if fixed == nil {
		return key, val
	}
	if on, ok := val.(bool); !ok || !on {
		return "", nil
	}
	return key, fixed
}
