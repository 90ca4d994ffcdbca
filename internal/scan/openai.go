package scan

// This file reads a skill's agents/openai.yaml, the metadata Codex keeps
// beside SKILL.md: how its apps present the skill (display name, short
// description, icons, colour, default prompt) and whether the model may
// invoke it on its own (policy.allow_implicit_invocation).
//
// The walk already lists every skill folder, so a skill costs nothing
// here unless its listing shows an agents/ folder; then the file is
// opened once (non-blocking, regular files only, at most
// maxOpenAISize bytes), or, when a previous scan read it, stat'ed once
// and reused if unchanged. Like Codex, ccski fails open: a file it cannot
// read or decode leaves the metadata out and the skill loaded, with a
// warning on the skill.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/pipeline"
)

// The metadata file Codex reads, below the skill folder.
const (
	openAIFolder = "agents"
	openAIFile   = "openai.yaml"
	// maxOpenAISize caps the file: real ones are a few hundred bytes.
	maxOpenAISize = 64 << 10
)

// Codex's limits on the interface strings, in characters.
const (
	maxDisplayName = 64
	maxShortText   = 1024
)

// iconOutside is the code of the problem for an icon outside the skill's
// assets/ folder. A plugin skill may share its plugin's icons ("../../
// assets/x.svg"), which ccski does not resolve; build drops the problem
// for plugin roots.
const iconOutside = "openai-yaml-icon-outside"

// metaEntry is one reading of an openai.yaml.
type metaEntry struct {
	id stamp // the file's, when read
	// meta is nil when the file says nothing usable.
	meta  *pipeline.OpenAIMetadata
	probs []skillmd.Problem
}

// rawOpenAI is the file as decoded. Unknown keys (dependencies,
// policy.products, ...) are ignored, as Codex ignores what it does not
// use.
type rawOpenAI struct {
	Interface *struct {
		DisplayName      *string `yaml:"display_name"`
		ShortDescription *string `yaml:"short_description"`
		IconSmall        *string `yaml:"icon_small"`
		IconLarge        *string `yaml:"icon_large"`
		BrandColor       *string `yaml:"brand_color"`
		DefaultPrompt    *string `yaml:"default_prompt"`
	} `yaml:"interface"`
	Policy *struct {
		AllowImplicitInvocation *bool `yaml:"allow_implicit_invocation"`
	} `yaml:"policy"`
}

// openAIPath is the path of dir's agents/openai.yaml.
func openAIPath(dir string) string { return filepath.Join(dir, openAIFolder, openAIFile) }

// readOpenAI returns the path of dir's agents/openai.yaml and its reading,
// or a nil reading when the file is not there. A cached reading is reused
// while the file's stamp is unchanged.
func readOpenAI(dir string, cache *Cache) (string, *metaEntry) {
	file := openAIPath(dir)
	if prev := cache.metaOf(file); prev != nil {
		st, err := os.Stat(file)
		if err == nil && stampOf(st) == prev.id {
			return file, prev
		}
	}
	f, st, err := safefile.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return file, nil
	}
	if err != nil {
		return file, &metaEntry{probs: unreadableOpenAI(err)}
	}
	defer f.Close()
	e := &metaEntry{id: stampOf(st)}
	data, err := safefile.ReadAll(f, st, maxOpenAISize)
	if err != nil {
		e.probs = unreadableOpenAI(err)
		return file, e
	}
	e.meta, e.probs = decodeOpenAI(data)
	if e.meta != nil { // the reading is this skill's alone: make its icons paths
		for _, icon := range []*string{&e.meta.IconSmall, &e.meta.IconLarge} {
			if *icon != "" {
				*icon = filepath.Join(dir, filepath.FromSlash(*icon))
			}
		}
	}
	return file, e
}

// unreadableOpenAI is the problem of an agents/openai.yaml that cannot be
// read.
func unreadableOpenAI(err error) []skillmd.Problem {
	return []skillmd.Problem{{Code: "openai-yaml-unreadable",
		Message: fmt.Sprintf("cannot read agents/openai.yaml: %v; its metadata is left out", safefile.Cause(err))}}
}

// yamlLine finds the line number in a YAML error message.
var yamlLine = regexp.MustCompile(`line (\d+)`)

// brandColor is a colour Codex accepts: "#" and six hex digits.
var brandColor = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)

// decodeOpenAI decodes an openai.yaml. A file that does not decode gives
// no metadata and one problem with its line; a value Codex would reject
// (too long, an icon outside assets/, a colour it cannot read) is left out
// with a problem, and the rest is kept.
func decodeOpenAI(data []byte) (*pipeline.OpenAIMetadata, []skillmd.Problem) {
	var raw rawOpenAI
	if err := yaml.Unmarshal(data, &raw); err != nil {
		pr := skillmd.Problem{Code: "openai-yaml-invalid",
			Message: fmt.Sprintf("agents/openai.yaml does not decode (%v); Codex ignores it, and so does ccski", err)}
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			pr.Line, _ = strconv.Atoi(m[1])
		}
		return nil, []skillmd.Problem{pr}
	}
	var m pipeline.OpenAIMetadata
	var probs []skillmd.Problem
	text := func(key string, v *string, limit int) string {
		if v == nil {
			return ""
		}
		s := skillmd.FoldSpace(*v)
		if utf8.RuneCountInString(s) > limit {
			probs = append(probs, skillmd.Problem{Code: "openai-yaml-invalid", Message: fmt.Sprintf(
				"agents/openai.yaml: %s is longer than %d characters; Codex ignores it", key, limit)})
			return ""
		}
		return s
	}
	icon := func(key string, v *string) string {
		if v == nil || *v == "" {
			return ""
		}
		rel, code, problem := iconPath(*v)
		if problem != "" {
			probs = append(probs, skillmd.Problem{Code: code, Message: fmt.Sprintf(
				"agents/openai.yaml: %s %q %s; Codex ignores it", key, *v, problem)})
		}
		return rel
	}
	if i := raw.Interface; i != nil {
		m.DisplayName = text("interface.display_name", i.DisplayName, maxDisplayName)
		m.ShortDescription = text("interface.short_description", i.ShortDescription, maxShortText)
		m.DefaultPrompt = text("interface.default_prompt", i.DefaultPrompt, maxShortText)
		m.IconSmall = icon("interface.icon_small", i.IconSmall)
		m.IconLarge = icon("interface.icon_large", i.IconLarge)
		if i.BrandColor != nil {
			if c := strings.TrimSpace(*i.BrandColor); brandColor.MatchString(c) {
				m.BrandColor = c
			} else {
				probs = append(probs, skillmd.Problem{Code: "openai-yaml-invalid", Message: fmt.Sprintf(
					"agents/openai.yaml: interface.brand_color %q is not a colour such as \"#F59E0B\"; Codex ignores it", c)})
			}
		}
	}
	if raw.Policy != nil {
		m.AllowImplicitInvocation = raw.Policy.AllowImplicitInvocation
	}
	if m == (pipeline.OpenAIMetadata{}) {
		return nil, probs
	}
	return &m, probs
}

// iconPath checks an icon path as Codex does: relative, and below the
// skill's assets/ folder once "./" parts are dropped. It returns the
// path, slash-separated and relative to the skill folder, or the problem
// with its code.
func iconPath(p string) (rel, code, problem string) {
	p = strings.ReplaceAll(p, `\`, "/")
	if path.IsAbs(p) || filepath.IsAbs(p) {
		return "", "openai-yaml-invalid", "must be a path relative to the skill folder"
	}
	var parts []string
	for _, part := range strings.Split(p, "/") {
		switch part {
		case "", ".":
		case "..":
			return "", iconOutside, "leaves the skill's assets/ folder"
		default:
			parts = append(parts, part)
		}
	}
	if len(parts) < 2 || parts[0] != "assets" {
		return "", "openai-yaml-invalid", "must be below the skill's assets/ folder"
	}
	return strings.Join(parts, "/"), "", ""
}

// diagnostics returns the problems of the reading as warnings on file. An
// icon outside the skill folder is no problem for a plugin skill, which
// may share its plugin's icons.
func (e *metaEntry) diagnostics(root pipeline.Root, file string) []pipeline.Diagnostic {
	var out []pipeline.Diagnostic
	for _, pr := range e.probs {
		if pr.Code == iconOutside && root.Plugin != nil {
			continue
		}
		d := diag(root, pipeline.SeverityWarning, pr.Code, file, "%s", pr.Message)
		d.Line = pr.Line
		out = append(out, d)
	}
	return out
}

// metaOf returns the cached reading of file, or nil.
func (c *Cache) metaOf(file string) *metaEntry {
	if c == nil {
		return nil
	}
	return c.meta[file]
}
