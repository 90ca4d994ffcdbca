package security

import (
	"bytes"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ccski/ccski/internal/skillmd"
)

// frontmatter is what the shell rules need from a skill file's
// frontmatter: its top-level keys, by name.
type frontmatter struct {
	// keys maps each top-level key to its line in the file and its
	// value (nil when the YAML could not be parsed: the line-based
	// reading keeps the text after the colon in raw).
	keys map[string]keyValue
	// body is the offset where the body starts (0 without frontmatter).
	body int
	// decoded are the double-quoted values whose YAML escapes (\u0070,
	// \U000E0069) spell other text than the file shows: what the clients
	// get after decoding, for the phrase and Unicode rules.
	decoded []decodedValue
}

// decodedValue is a frontmatter string as YAML decodes it, and the line
// of the file it starts on.
type decodedValue struct {
	line int
	text string
}

// key returns the top-level key name of f; ok is false when f is nil (no
// frontmatter) or has no such key.
func (f *frontmatter) key(name string) (kv keyValue, ok bool) {
	if f == nil {
		return keyValue{}, false
	}
	kv, ok = f.keys[name]
	return kv, ok
}

type keyValue struct {
	line  int
	value *yaml.Node
	raw   string
}

// parseFrontmatter reads the frontmatter of a skill file. YAML that does
// not parse is read line by line, as discovery reads it.
func parseFrontmatter(data []byte) *frontmatter {
	fm := &frontmatter{keys: map[string]keyValue{}}
	h, err := skillmd.ReadHead(bytes.NewReader(data))
	if err != nil {
		return fm
	}
	fm.body = min(h.BodyOffset, len(data))
	if bytes.IndexByte(h.Raw, '\\') >= 0 {
		fm.decoded = decodedValues(h)
	}
	if !mentionsKey(h.Raw, "hooks", "allowed-tools", "arguments") {
		return fm // nothing the rules read: no need to parse
	}
	var doc yaml.Node
	if yaml.Unmarshal(h.Raw, &doc) == nil && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		m := doc.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			k := m.Content[i]
			fm.keys[k.Value] = keyValue{line: h.StartLine + k.Line - 1, value: m.Content[i+1]}
		}
		return fm
	}
	for i, line := range strings.Split(string(h.Raw), "\n") {
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			fm.keys[strings.TrimSpace(k)] = keyValue{line: h.StartLine + i, raw: strings.TrimSpace(v)}
		}
	}
	return fm
}

// decodedValues returns the double-quoted strings of the frontmatter
// that hold an escape, decoded. Aliases are not expanded (a Node keeps
// them as references), so an alias bomb costs nothing here.
func decodedValues(h *skillmd.Head) []decodedValue {
	var doc yaml.Node
	if yaml.Unmarshal(h.Raw, &doc) != nil {
		return nil
	}
	var out []decodedValue
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > 64 || len(out) >= 64 {
			return
		}
		if n.Kind == yaml.ScalarNode && n.Style&yaml.DoubleQuotedStyle != 0 && rawHasEscape(h.Raw, n.Line) {
			out = append(out, decodedValue{line: h.StartLine + n.Line - 1, text: n.Value})
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(&doc, 0)
	return out
}

// rawHasEscape reports whether the 1-based line of raw, or a line after
// it (a quoted string may span lines), holds a backslash.
func rawHasEscape(raw []byte, line int) bool {
	for i := 1; i < line && len(raw) > 0; i++ {
		j := bytes.IndexByte(raw, '\n')
		if j < 0 {
			return false
		}
		raw = raw[j+1:]
	}
	return bytes.IndexByte(raw, '\\') >= 0
}

// withDecoded runs a file rule on the skill file, then on each decoded
// frontmatter value as a document of its own, reporting what it finds
// there at the value's line (a finding the file itself has on that line
// is not repeated).
func withDecoded(check func(c *fileCheck)) func(c *fileCheck) {
	return func(c *fileCheck) {
		check(c)
		if c.front == nil {
			return
		}
		for _, v := range c.front.decoded {
			sub := &fileCheck{f: &file{rel: c.f.rel, class: classText | classDoc | classSkill, data: []byte(v.text)},
				count: c.count, code: c.code}
			check(sub)
			for _, fd := range sub.out {
				dup := slices.ContainsFunc(c.out, func(o finding) bool { return o.code == fd.code && o.line == v.line })
				if !dup {
					fd.line, fd.col = v.line, 0
					fd.msg = "the frontmatter, once its YAML escapes are decoded as the agent gets it, " + fd.msg
					c.out = append(c.out, fd)
				}
			}
		}
	}
}

// mentionsKey reports whether one of the keys starts a line of raw.
func mentionsKey(raw []byte, keys ...string) bool {
	for _, k := range keys {
		for i := 0; ; {
			j := bytes.Index(raw[i:], []byte(k))
			if j < 0 {
				break
			}
			if i+j == 0 || raw[i+j-1] == '\n' {
				return true
			}
			i += j + 1
		}
	}
	return false
}

// checkHooks reports a hooks key in the skill file's frontmatter.
func checkHooks(c *fileCheck) {
	kv, ok := c.front.key("hooks")
	if !ok {
		return
	}
	events := ""
	if kv.value != nil && kv.value.Kind == yaml.MappingNode {
		var names []string
		for i := 0; i < len(kv.value.Content); i += 2 {
			names = append(names, kv.value.Content[i].Value)
		}
		if len(names) > 0 {
			events = " (" + excerptString(strings.Join(names, ", ")) + ")"
		}
	}
	c.addLine(kv.line, "the frontmatter defines hooks%s: Claude Code runs their commands on tool events while the "+
		"skill is active, without the model or the user choosing to; check every command they run", events)
}

// checkAllowedTools reports allowed-tools entries that pre-approve every
// shell command.
func checkAllowedTools(c *fileCheck) {
	kv, ok := c.front.key("allowed-tools")
	if !ok {
		return
	}
	var tools []string
	switch {
	case kv.value == nil:
		tools = splitTools(kv.raw)
	case kv.value.Kind == yaml.ScalarNode:
		tools = splitTools(kv.value.Value)
	case kv.value.Kind == yaml.SequenceNode:
		for _, n := range kv.value.Content {
			if n.Kind == yaml.ScalarNode {
				tools = append(tools, splitTools(n.Value)...)
			}
		}
	}
	var broad []string
	for _, t := range tools {
		if broadTool(t) {
			broad = append(broad, t)
		}
	}
	if len(broad) == 0 {
		return
	}
	c.addLine(kv.line, "allowed-tools pre-approves every shell command (%s): while the skill is active the agent "+
		"runs any command without asking; list only the commands it needs, such as Bash(git:*)",
		excerptString(strings.Join(broad, " ")))
}

// splitTools splits an allowed-tools string at spaces and commas outside
// parentheses: "Read, Bash(git add:*) Grep".
func splitTools(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || depth == 0 && (s[i] == ' ' || s[i] == ',' || s[i] == '\t') {
			if t := strings.TrimSpace(s[start:i]); t != "" {
				out = append(out, t)
			}
			start = i + 1
			continue
		}
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth = max(0, depth-1)
		}
	}
	return out
}

// broadTool reports whether an allowed-tools entry allows every command
// of a shell: "*", "Bash", "Bash(*)", "Bash(*:*)", "PowerShell(:*)".
func broadTool(t string) bool {
	if t == "*" {
		return true
	}
	name, args, hasArgs := strings.Cut(t, "(")
	if !strings.EqualFold(name, "bash") && !strings.EqualFold(name, "powershell") && !strings.EqualFold(name, "shell") {
		return false
	}
	if !hasArgs {
		return true
	}
	args = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(args), ")"))
	return slices.Contains([]string{"", "*", "**", "*:*", ":*", "* *"}, args)
}

// argumentRef matches what Claude Code substitutes with the caller's
// arguments: $ARGUMENTS, $ARGUMENTS[N], $N.
var argumentRef = regexp.MustCompile(`\$(ARGUMENTS\b|\{ARGUMENTS|[0-9])`)

// checkInlineShell reports !`command` lines and ```! blocks of the skill
// file's body that interpolate arguments, download or evaluate code.
func checkInlineShell(c *fileCheck) {
	if c.front == nil {
		return
	}
	d := c.f.data
	names := argumentNames(c.front)
	body := c.front.body
	for i := body; ; {
		j := bytes.Index(d[i:], []byte("!`"))
		if j < 0 {
			break
		}
		s := i + j
		i = s + 2
		if s+2 < len(d) && d[s+2] == '`' {
			continue // "!```", a fence: below
		}
		_, le := lineBounds(d, s)
		e := bytes.IndexByte(d[s+2:le], '`')
		if e < 0 {
			continue
		}
		cmd := d[s+2 : s+2+e]
		if why := shellRisk(cmd, names); why != "" {
			c.add(s, "the !`command` %s (%s), and Claude Code runs it as the skill loads: %s", why,
				excerpt(d, s, s+3+e), shellFix(why))
		}
		i = s + 3 + e
	}
	// ```! blocks.
	for i := body; ; {
		j := bytes.Index(d[i:], []byte("```!"))
		if j < 0 {
			return
		}
		s := i + j
		ls, _ := lineBounds(d, s)
		i = s + 4
		if len(bytes.TrimLeft(d[ls:s], " ")) != 0 {
			continue
		}
		_, le := lineBounds(d, s)
		end := bytes.Index(d[le:], []byte("\n```"))
		stop := len(d)
		if end >= 0 {
			stop = le + end
		}
		if why := shellRisk(d[le:stop], names); why != "" {
			c.add(s, "the ```! block %s (%s), and Claude Code runs it as the skill loads: %s", why,
				excerpt(d, le, stop), shellFix(why))
		}
		i = stop
	}
}

// argumentNames returns the names of the frontmatter's arguments (a list
// of names, or of mappings with a name), which Claude Code substitutes as
// $name.
func argumentNames(fm *frontmatter) []string {
	kv, ok := fm.keys["arguments"]
	if !ok || kv.value == nil {
		return nil
	}
	var names []string
	add := func(n *yaml.Node) {
		switch n.Kind {
		case yaml.ScalarNode:
			names = append(names, n.Value)
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == "name" {
					names = append(names, n.Content[i+1].Value)
				}
			}
		}
	}
	switch kv.value.Kind {
	case yaml.SequenceNode:
		for _, n := range kv.value.Content {
			add(n)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(kv.value.Content); i += 2 {
			names = append(names, kv.value.Content[i].Value)
		}
	case yaml.ScalarNode:
		names = strings.Fields(kv.value.Value)
	}
	return names
}

// The risks shellRisk reports.
const (
	riskArguments = "passes the caller's arguments to the shell"
	riskNetwork   = "downloads or evaluates code"
)

// shellRisk says what is wrong with an inline command, or "".
func shellRisk(cmd []byte, names []string) string {
	if argumentRef.Match(cmd) {
		return riskArguments
	}
	for _, n := range names {
		if n == "" {
			continue
		}
		for i := 0; ; {
			j := bytes.Index(cmd[i:], []byte("$"+n))
			if j < 0 {
				break
			}
			if wordEnd(cmd, i+j+1+len(n)) {
				return riskArguments
			}
			i += j + 1
		}
	}
	for _, w := range []string{"curl", "wget", "nc", "ncat", "socat", "eval", "iex", "invoke-expression", "iwr",
		"invoke-webrequest", "base64"} {
		if containsWord(cmd, w) {
			return riskNetwork
		}
	}
	if pipedToInterpreter(cmd) || bytes.Contains(cmd, []byte("sh -c")) {
		return riskNetwork
	}
	return ""
}

func shellFix(why string) string {
	if why == riskArguments {
		return "the caller's text then runs as shell code; read the arguments in a bundled script that quotes them"
	}
	return "bundle the code in the skill instead, and keep !`command` lines to read-only commands such as git status"
}
