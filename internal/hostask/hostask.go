// Package hostask asks an installed host, locally and offline, what it
// lists to its model, and reads the answer: Codex's `codex debug
// prompt-input`, Claude Code's `claude plugin list --json`, and a request
// Claude Code sent to its API, captured (by a test's stand-in for the
// API). `ccski doctor --ask-host` diffs the answer with ccski's model of
// the host, so that a difference is a bug report, not a guess.
//
// Claude Code prints its skill listing only inside a session, and a
// session writes to the user's home (a transcript, ~/.claude.json, its
// plugin bookkeeping) and runs the user's hooks and MCP servers: doctor
// therefore asks it only `claude plugin list --json`, which runs nothing
// of the user's. The captured request is for tests, in a throwaway home.
package hostask

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Listed is one skill as a host lists it to its model.
type Listed struct {
	// Name is the name the host lists; Also the other name it gives in
	// parentheses (Claude Code: the frontmatter name when the folder's
	// differs), or "".
	Name string `json:"name"`
	Also string `json:"also,omitempty"`
	// Description is the description as listed, cut or not; "" when the
	// host lists the name alone.
	Description string `json:"description,omitempty"`
	// File is the SKILL.md the host names (Codex), absolute; "" when the
	// host does not say. Short is the path as the host wrote it
	// ("r1/name/SKILL.md").
	File  string `json:"file,omitempty"`
	Short string `json:"-"`
}

// CodexCommand is what ParseCodex reads the output of.
const CodexCommand = "codex debug prompt-input"

// Codex runs `codex debug prompt-input` with the environment env (nil:
// this process's) in the folder dir, and returns the skills it lists.
// bin is the codex command ("" finds it on PATH).
func Codex(ctx context.Context, bin, dir string, env []string) ([]Listed, error) {
	out, err := run(ctx, bin, "codex", dir, env, "debug", "prompt-input")
	if err != nil {
		return nil, err
	}
	return ParseCodex(out)
}

// codexEntry is one line of Codex's listing: "- name: description (file:
// r1/path/SKILL.md)".
var (
	codexEntry = regexp.MustCompile(`^- (.*?): ?(.*) \(file: (r\d+)/(.*)\)$`)
	codexRoot  = regexp.MustCompile("^- `(r\\d+)` = `(.*)`$")
)

// ParseCodex reads the output of `codex debug prompt-input` (a JSON array
// of input items) and returns the skills of its <skills_instructions>, in
// order, each with its file made absolute through the roots table. No
// skills block is an empty list, not an error: Codex leaves it out when
// it lists no skill.
func ParseCodex(data []byte) ([]Listed, error) {
	var items []struct {
		Type    string `json:"type"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(data, &items); err != nil {
		return nil, fmt.Errorf("reading the output of %s: %w (is this Codex 0.171 or later?)", CodexCommand, err)
	}
	out := []Listed{}
	for _, it := range items {
		for _, c := range it.Content {
			i := strings.Index(c.Text, "<skills_instructions>")
			if i < 0 {
				continue
			}
			roots := map[string]string{}
			for line := range strings.Lines(c.Text[i:]) {
				line = strings.TrimRight(line, "\r\n")
				if m := codexRoot.FindStringSubmatch(line); m != nil {
					roots[m[1]] = m[2]
					continue
				}
				if m := codexEntry.FindStringSubmatch(line); m != nil {
					file := m[4]
					if root, ok := roots[m[3]]; ok {
						file = filepath.Join(root, filepath.FromSlash(m[4]))
					}
					out = append(out, Listed{Name: m[1], Description: m[2], File: file, Short: m[3] + "/" + m[4]})
				}
			}
		}
	}
	return out, nil
}

// claudeHeading starts Claude Code's skill listing.
const claudeHeading = "The following skills are available for use with the Skill tool:"

// ParseClaudeRequest reads the body of a request Claude Code sent to
// /v1/messages and returns the skills its listing names, in order: "-
// folder (frontmatter-name): description", "- plugin:folder: description"
// or "- name" alone. It is an error when the request has no listing.
func ParseClaudeRequest(body []byte) ([]Listed, error) {
	var req struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("reading Claude Code's request: %w", err)
	}
	texts := textsOf(req.System)
	for _, m := range req.Messages {
		texts = append(texts, textsOf(m.Content)...)
	}
	for _, t := range texts {
		if i := strings.Index(t, claudeHeading); i >= 0 {
			return parseClaudeListing(t[i+len(claudeHeading):]), nil
		}
	}
	return nil, errors.New("Claude Code's request holds no skill listing (\"" + claudeHeading + "\")")
}

// textsOf returns the texts of a content field: a string, or blocks with
// a text.
func textsOf(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var out []string
	for _, b := range blocks {
		out = append(out, b.Text)
	}
	return out
}

// claudeName is an entry's name part: "name" or "name (other)".
var claudeName = regexp.MustCompile(`^(\S+)(?: \((\S+)\))?$`)

// parseClaudeListing reads the entries after the heading: one "- " line
// each, a multi-line description continuing on the lines after, up to
// the first blank line after the entries or a closing tag.
func parseClaudeListing(text string) []Listed {
	out := []Listed{}
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "- "):
			head, desc, _ := strings.Cut(line[2:], ": ")
			l := Listed{Name: head, Description: desc}
			if m := claudeName.FindStringSubmatch(head); m != nil {
				l.Name, l.Also = m[1], m[2]
			}
			out = append(out, l)
		case line == "" && len(out) == 0:
		case line == "" || strings.HasPrefix(line, "</"):
			return out
		case len(out) > 0:
			out[len(out)-1].Description += "\n" + line
		}
	}
	return out
}

// PluginStatus is one plugin as `claude plugin list --json` reports it.
type PluginStatus struct {
	ID          string   `json:"id"`
	Version     string   `json:"version"`
	Scope       string   `json:"scope"`
	Enabled     bool     `json:"enabled"`
	InstallPath string   `json:"installPath"`
	Errors      []string `json:"errors"`
	// ErrorDetails' types say what failed ("manifest-validation-error",
	// "generic-error").
	ErrorDetails []struct {
		Type string `json:"type"`
	} `json:"errorDetails"`
}

// Loads reports whether Claude Code loads the plugin: enabled, and no
// error.
func (p PluginStatus) Loads() bool { return p.Enabled && len(p.Errors) == 0 }

// ClaudePluginsCommand is what ClaudePlugins runs.
const ClaudePluginsCommand = "claude plugin list --json"

// ClaudePlugins runs `claude plugin list --json` with env (nil: this
// process's) in dir and returns the plugins it reports, the built-in ones
// ("@builtin") left out. bin is the claude command ("" finds it on PATH).
func ClaudePlugins(ctx context.Context, bin, dir string, env []string) ([]PluginStatus, error) {
	out, err := run(ctx, bin, "claude", dir, env, "plugin", "list", "--json")
	if err != nil {
		return nil, err
	}
	return ParseClaudePlugins(out)
}

// ParseClaudePlugins reads the output of `claude plugin list --json`.
func ParseClaudePlugins(data []byte) ([]PluginStatus, error) {
	var all []PluginStatus
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, fmt.Errorf("reading the output of %s: %w", ClaudePluginsCommand, err)
	}
	out := all[:0]
	for _, p := range all {
		if !strings.HasSuffix(p.ID, "@builtin") {
			out = append(out, p)
		}
	}
	return out, nil
}

// Diff returns the names only the host lists and those only the model
// does, each sorted, a name counted as often as it appears.
func Diff(host, model []string) (onlyHost, onlyModel []string) {
	count := map[string]int{}
	for _, n := range host {
		count[n]++
	}
	for _, n := range model {
		count[n]--
	}
	onlyHost, onlyModel = []string{}, []string{}
	for n, c := range count {
		for ; c > 0; c-- {
			onlyHost = append(onlyHost, n)
		}
		for ; c < 0; c++ {
			onlyModel = append(onlyModel, n)
		}
	}
	slices.Sort(onlyHost)
	slices.Sort(onlyModel)
	return onlyHost, onlyModel
}

// lastLine is the last non-blank line of s, for an error message.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
