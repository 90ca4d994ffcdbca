package copilot

// This file reads chat.agentSkillsLocations from VS Code's settings files.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/internal/hostfile"
)

// workspaceSettings is a workspace's VS Code settings file, below the
// workspace folder.
const workspaceSettings = ".vscode/settings.json"

// otherDefaults are the folders VS Code reads by default that other
// providers plan (claude, agents): an entry naming one is theirs.
var otherDefaults = []string{".claude/skills", ".agents/skills", "~/.claude/skills", "~/.agents/skills"}

// location is a folder chat.agentSkillsLocations adds.
type location struct {
	path string
	// user is set for a personal folder: one the user settings add, or a
	// "~/..." one; the others are the project's.
	user bool
}

// locations is the merged setting.
type locations struct {
	// disabled are this provider's default folders the setting turns
	// off, in the setting's spelling ("~/.copilot/skills").
	disabled []string
	// extra are the folders it adds, in the order met, each once.
	extra []location
}

// off reports whether the setting turns the default folder def off.
func (l locations) off(def string) bool { return slices.Contains(l.disabled, def) }

// entry is one key of the setting, with the folder a relative path is
// taken from and the file that set it.
type entry struct {
	key   string
	on    bool
	base  string
	file  string
	order int
	// user is set for an entry of a user settings file.
	user bool
}

// settingsReader reads the settings files of one Plan call.
type settingsReader struct {
	env   providers.Env
	diags []pipeline.Diagnostic
	files []string
}

// read merges chat.agentSkillsLocations from the user settings files, in
// order, and then from the workspace settings files, farthest first, so
// that the nearest workspace's value of a key wins, as VS Code merges an
// object setting across its scopes.
func (s *settingsReader) read(userFiles []string) locations {
	merged := map[string]entry{}
	wsBase := s.workspaceFolder()
	n := 0
	add := func(file, base string, user bool) {
		for _, e := range s.entries(file, base) {
			e.order, e.user = n, user
			n++
			merged[normalize(e.key)] = e
		}
	}
	for _, f := range userFiles {
		add(f, wsBase, true)
	}
	dirs := s.env.WorkspaceDirs
	for i := len(dirs) - 1; i >= 0; i-- {
		add(filepath.Join(dirs[i], filepath.FromSlash(workspaceSettings)), dirs[i], false)
	}
	keys := make([]string, 0, len(merged))
	for k := range merged {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return merged[a].order - merged[b].order })
	var out locations
	for _, k := range keys {
		e := merged[k]
		switch {
		case k == WorkspaceFolder || k == "~/"+UserFolder:
			if !e.on {
				out.disabled = append(out.disabled, k)
			}
		case slices.Contains(otherDefaults, k), !e.on:
		default:
			loc := location{path: s.resolve(e.key, e.base), user: e.user || k == "~" || strings.HasPrefix(k, "~/")}
			if !slices.ContainsFunc(out.extra, func(l location) bool { return l.path == loc.path }) {
				out.extra = append(out.extra, loc)
			}
		}
	}
	return out
}

// workspaceFolder is the folder VS Code would have open: the nearest
// workspace folder holding .vscode/settings.json, else the outermost one
// (the repository root, or the workspace itself outside a repository).
// User settings take relative folders from it.
func (s *settingsReader) workspaceFolder() string {
	dirs := s.env.WorkspaceDirs
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, filepath.FromSlash(workspaceSettings))); err == nil {
			return d
		}
	}
	if len(dirs) > 0 {
		return dirs[len(dirs)-1]
	}
	return s.env.Workspace
}

// entries reads the setting's entries from one settings file; a missing
// file has none, and a broken one is reported and has none.
func (s *settingsReader) entries(file, base string) []entry {
	s.files = append(s.files, file)
	data, found, err := hostfile.Read(file)
	if !found {
		return nil
	}
	if err != nil {
		s.report(pipeline.SeverityWarning, "vscode-settings-unreadable", file, 0,
			"cannot read %s: %v; its %s is ignored", filepath.Base(file), err, SettingKey)
		return nil
	}
	var v any
	if err := hostfile.DecodeJSONC(data, &v); err != nil {
		line := 0
		if se, ok := err.(*hostfile.SyntaxError); ok {
			line = se.Line
		}
		s.report(pipeline.SeverityWarning, "vscode-settings-malformed", file, line,
			"%s is not valid JSON with comments (%v); VS Code ignores the file until it is fixed", filepath.Base(file), err)
		return nil
	}
	doc, ok := v.(map[string]any)
	if !ok {
		s.report(pipeline.SeverityWarning, "vscode-settings-invalid", file, 0,
			"%s must hold a JSON object of settings; VS Code ignores the file", filepath.Base(file))
		return nil
	}
	raw, set := doc[SettingKey]
	if !set || raw == nil {
		return nil
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		s.report(pipeline.SeverityWarning, "vscode-settings-invalid", file, 0,
			"%s must be an object mapping folders to true or false, such as {\"my-skills\": true}; VS Code ignores it",
			SettingKey)
		return nil
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []entry
	for _, k := range keys {
		on, ok := obj[k].(bool)
		switch {
		case !ok:
			s.report(pipeline.SeverityWarning, "vscode-settings-invalid", file, 0,
				"%s: the value of %q must be true or false; the folder is ignored", SettingKey, k)
		case strings.TrimSpace(k) == "":
			s.report(pipeline.SeverityWarning, "vscode-settings-invalid", file, 0,
				"%s has an empty folder name; it is ignored", SettingKey)
		case strings.ContainsAny(k, "*?[]{}"):
			s.report(pipeline.SeverityWarning, "vscode-settings-invalid", file, 0,
				"%s: %q is a glob; VS Code takes folders only, so it is ignored: name the folder", SettingKey, k)
		default:
			out = append(out, entry{key: k, on: on, base: base, file: file})
		}
	}
	return out
}

// resolve makes a setting's folder a path: "~/..." below the user folder,
// an absolute path as it is, anything else below base.
func (s *settingsReader) resolve(key, base string) string {
	k := filepath.FromSlash(strings.ReplaceAll(key, `\`, "/"))
	if strings.TrimRight(filepath.ToSlash(k), "/") == "~" {
		return s.env.UserDir
	}
	if rest, ok := strings.CutPrefix(filepath.ToSlash(k), "~/"); ok {
		return filepath.Join(s.env.UserDir, filepath.FromSlash(rest))
	}
	if filepath.IsAbs(k) {
		return filepath.Clean(k)
	}
	return filepath.Join(base, k)
}

// normalize spells a setting's folder so that equal folders compare
// equal: forward slashes, no leading "./", no trailing slash.
func normalize(key string) string {
	k := strings.ReplaceAll(strings.TrimSpace(key), `\`, "/")
	for strings.HasPrefix(k, "./") {
		k = k[2:]
	}
	for len(k) > 1 && strings.HasSuffix(k, "/") {
		k = k[:len(k)-1]
	}
	return k
}

func (s *settingsReader) report(sev pipeline.Severity, code, path string, line int, format string, args ...any) {
	s.diags = append(s.diags, pipeline.Diagnostic{Severity: sev, Code: code, Provider: Name, Path: path,
		Line: line, Message: fmt.Sprintf(format, args...)})
}
