package configs

import (
	"github.com/knadh/koanf/providers/posflag"
	"github.com/spf13/pflag"
)

// AddFlags registers the discovery flags shared by every command. Their
// defaults are empty: a flag counts only when given, and then beats every
// other layer. --config is read by the caller and passed to Load as
// Options.ConfigFile.
func AddFlags(fs *pflag.FlagSet) {
	fs.String("config", "", "read this config file instead of the nearest "+ProjectFile)
	fs.StringSlice("include", nil, "show only skills matching these filters (comma-separated)")
	fs.StringSlice("exclude", nil, "hide skills matching these filters (comma-separated)")
	fs.Bool("all", false, "show enabled and disabled skills")
	fs.Bool("disabled", false, "show only disabled skills")
	fs.StringArray("skill-dir", nil, "add a skill folder, DIR or DIR?scope=NAME (repeatable)")
	fs.String("user-dir", "", "use this folder instead of the home folder for user skills")
	fs.String("workspace", "", "project folder (default: the current folder)")
	fs.Bool("no-plugins", false, "skip Claude plugin skills")
	fs.String("claude-plugins-file", "", "path of Claude's installed_plugins.json")
	fs.String("claude-plugins-root", "", "base folder for relative Claude plugin paths")
}

// AddMCPFlags registers the flags of `ccski mcp`.
func AddMCPFlags(fs *pflag.FlagSet) {
	fs.String("transport", "", "MCP transport: stdio, http or sse (default stdio)")
	fs.String("host", "", "address to listen on for http and sse (default 127.0.0.1)")
	fs.Int("port", 0, "port to listen on for http and sse (default 3000)")
	fs.String("refresh-interval", "", `time between rescans, e.g. "30s", or milliseconds`)
	fs.Bool("no-refresh", false, "never rescan: no periodic rescans and no watcher")
	fs.Bool("no-watch", false, "do not watch skill folders for changes")
	fs.String("auth-token", "", "bearer token HTTP clients must send")
	fs.Bool("stateless", false, "serve HTTP without sessions")
	fs.String("log-level", "", "log level: debug, info, warn or error (default info)")
	fs.String("log-format", "", "log format: text or json (default text)")
	fs.StringArray("allowed-origin", nil, "also accept this browser origin (repeatable)")
	fs.StringSlice("tools", nil, "also serve these tools: skills_list, skills_search, sources, ask")
	fs.Int("catalog", 0, "character budget of the skill tool's list of skills; 0: no budget (default 16000)")
	fs.Bool("skill-prompts", false, "also serve every skill as an MCP prompt")
}

// flagKey returns the flattened key a flag sets and, for flags that set a
// fixed value when given (--all, --no-plugins, ...), that value. It
// returns "" for flags that map to no key.
func flagKey(name string) (key string, fixed any) {
	switch name {
	case "include", "exclude", "workspace":
		return name, nil
	case "all":
		return "state", "all"
	case "disabled":
		return "state", "disabled"
	case "skill-dir":
		return "providers.custom.dirs", nil
	case "user-dir":
		return "user_dir", nil
	case "no-plugins":
		return "providers.marketplace.enabled", false
	case "claude-plugins-file":
		return "providers.marketplace.plugins_file", nil
	case "claude-plugins-root":
		return "providers.marketplace.plugins_root", nil
	case "transport", "host", "port", "stateless":
		return "mcp." + name, nil
	case "refresh-interval":
		return "mcp.refresh_interval", nil
	case "no-refresh":
		return "mcp.refresh", false
	case "no-watch":
		return "mcp.watch", false
	case "auth-token":
		return "mcp.auth_token", nil
	case "log-level":
		return "mcp.log_level", nil
	case "log-format":
		return "mcp.log_format", nil
	case "allowed-origin":
		return "mcp.allowed_origins", nil
	case "tools", "catalog":
		return "mcp." + name, nil
	case "skill-prompts":
		return "mcp.skill_prompts", true
	}
	return "", nil
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
