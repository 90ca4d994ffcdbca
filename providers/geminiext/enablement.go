package geminiext

// This file reads extension-enablement.json and decides, as Gemini CLI
// does, whether an extension is enabled in a folder.

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers/internal/hostfile"
)

// enablement is extension-enablement.json: per extension name, its
// override rules in file order.
type enablement struct {
	file  string
	rules map[string][]string
}

// readEnablement reads the extensions folder's extension-enablement.json.
// A missing file enables every extension; a broken one is reported and
// enables every extension, as Gemini CLI then does.
func (p *planner) readEnablement() enablement {
	e := enablement{file: filepath.Join(p.dir, enablementFile), rules: map[string][]string{}}
	p.manifests = append(p.manifests, e.file)
	data, found, err := hostfile.Read(e.file)
	if !found {
		return e
	}
	if err != nil {
		p.report(pipeline.SeverityWarning, "extension-enablement-unreadable", e.file,
			"cannot read %s: %v; every extension counts as enabled", enablementFile, err)
		return e
	}
	var raw map[string]any
	if err := hostfile.DecodeJSON(data, &raw); err != nil {
		line := 0
		if se, ok := err.(*hostfile.SyntaxError); ok {
			line = se.Line
		}
		p.diags = append(p.diags, pipeline.Diagnostic{Severity: pipeline.SeverityWarning,
			Code: "extension-enablement-malformed", Provider: Label, Path: e.file, Line: line,
			Message: fmt.Sprintf("%s is not valid JSON (%v); Gemini CLI then counts every extension as enabled",
				enablementFile, err)})
		return e
	}
	for name, v := range raw {
		rules, ok := overrides(v)
		if !ok {
			p.report(pipeline.SeverityWarning, "extension-enablement-invalid", e.file,
				"%s: the entry of extension %s must be {\"overrides\": [\"<path rule>\", ...]}; it is ignored",
				enablementFile, name)
			continue
		}
		e.rules[name] = rules
	}
	return e
}

// overrides decodes one entry, {"overrides": ["/path/*", "!/other/"]}.
func overrides(v any) ([]string, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	raw, set := obj["overrides"]
	if !set || raw == nil {
		return nil, true
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(list))
	for _, r := range list {
		s, ok := r.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// enabled reports whether extension name is enabled in folder: the last
// override rule that matches the folder decides, and an extension no rule
// matches is enabled.
func (e enablement) enabled(name, folder string) bool {
	on := true
	path := slashed(folder)
	for _, rule := range e.rules[name] {
		disable := strings.HasPrefix(rule, "!")
		base := strings.TrimPrefix(rule, "!")
		subdirs := strings.HasSuffix(base, "*")
		base = strings.TrimSuffix(base, "*")
		glob := base
		if subdirs {
			glob += "*"
		}
		if globRE(glob).MatchString(path) {
			on = !disable
		}
	}
	return on
}

// slashed writes a folder as the rules spell folders: forward slashes,
// with a leading and a trailing one.
func slashed(dir string) string {
	s := strings.ReplaceAll(filepath.ToSlash(dir), `\`, "/")
	if !strings.HasPrefix(s, "/") {
		s = "/" + s
	}
	if !strings.HasSuffix(s, "/") {
		s += "/"
	}
	return s
}

// globRE turns a rule into the expression Gemini CLI matches folders
// with: "*" matches anything, and "/*" the folder before it as well as
// everything below it.
func globRE(glob string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	lit := 0 // start of the literal text not yet written
	for i := 0; i < len(glob); i++ {
		if glob[i] != '*' {
			continue
		}
		end, star := i, "(.*)?"
		if i > lit && glob[i-1] == '/' {
			end, star = i-1, "(/.*)?"
		}
		b.WriteString(regexp.QuoteMeta(glob[lit:end]))
		b.WriteString(star)
		lit = i + 1
	}
	b.WriteString(regexp.QuoteMeta(glob[lit:]))
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}
