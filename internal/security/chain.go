package security

// Flows across the files of a skill. An attack is often split so that no
// file holds all of it: SKILL.md tells the agent to run scripts/x.py,
// which reads a secret and sends it; one script writes the secret to a
// file and another sends that file; a document pipes a script's output
// into curl. Each file's analysis (flow.go) leaves facts: the files it
// writes from a secret or a download, the files it sends or runs, the
// scripts it names, and whether it reads a secret or sends anything.
// Facts are kept with the file's findings (under codes that start with
// "fact:", never reported), so that a rescan that reads no file still
// joins them; the folder's facts are then joined into one finding on the
// chain.

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ccski/ccski/internal/report"
)

// The kinds of fact.
const (
	factPrefix  = "fact:"
	factWrites  = "fact:writes"  // msg: bits, path, label (tab-separated)
	factSends   = "fact:sends"   // msg: path, sink
	factRuns    = "fact:runs"    // msg: path
	factSecret  = "fact:secret"  // msg: label
	factNetwork = "fact:network" // msg: label
)

// isFact reports whether a finding is a fact.
func isFact(fd finding) bool { return strings.HasPrefix(fd.code, factPrefix) }

// recordFacts adds the facts of a flow analysis of the file (or of its
// code view, which has the same lines) to the file's facts.
func (c *fileCheck) recordFacts(r *flowResult) {
	if c.facts == nil {
		return
	}
	add := func(code string, at int, msg string) {
		line, _ := position(c.f.data, at)
		for _, o := range *c.facts {
			if o.code == code && o.msg == msg && (o.line == line || code == factSecret || code == factNetwork) {
				return
			}
		}
		*c.facts = append(*c.facts, finding{code: code, line: line, msg: msg})
	}
	for _, w := range r.writes {
		add(factWrites, w.at, strconv.Itoa(int(w.bits))+"\t"+w.path+"\t"+w.label)
	}
	for _, s := range r.sends {
		add(factSends, s.at, s.path+"\t"+s.label)
	}
	for _, p := range r.runs {
		add(factRuns, p.at, p.path)
	}
	if r.secret != nil {
		add(factSecret, r.secret.at, r.secret.label)
	}
	if r.network != nil {
		add(factNetwork, r.network.at, r.network.label)
	}
}

// fileFacts are the facts of one file of a skill.
type fileFacts struct {
	rel   string
	facts []finding
}

// chainFindings joins the facts of a skill's files into findings (see
// the comment at the top), leaving out what out already reports.
func chainFindings(dir string, files []fileFacts, out []report.Finding) []report.Finding {
	var add []report.Finding
	reported := func(code, rel string, line int) bool {
		full := filepath.Join(dir, filepath.FromSlash(rel))
		for _, f := range slices.Concat(out, add) {
			if f.Code == code && f.File == full && (line == 0 || f.Line == line) {
				return true
			}
		}
		return false
	}
	report1 := func(code, rel string, line int, msg string) {
		if !reported(code, rel, line) {
			add = append(add, report.Finding{Code: code, File: filepath.Join(dir, filepath.FromSlash(rel)), Line: line,
				Message: msg})
		}
	}
	// script resolves a path as a document or a script writes it to a
	// file of the skill.
	script := func(p string) *fileFacts {
		p = cleanRef(p)
		if p == "" {
			return nil
		}
		for i := range files {
			r := files[i].rel
			if r == p || strings.HasSuffix(p, "/"+r) || strings.HasSuffix(r, "/"+p) && strings.Contains(p, "/") {
				return &files[i]
			}
		}
		return nil
	}
	first := func(ff *fileFacts, code string) *finding {
		for i := range ff.facts {
			if ff.facts[i].code == code {
				return &ff.facts[i]
			}
		}
		return nil
	}
	for bi := range files {
		b := &files[bi]
		for _, s := range b.facts {
			switch s.code {
			case factSends:
				path, sink, _ := strings.Cut(s.msg, "\t")
				// A file another file writes from a secret.
				for _, a := range files {
					for _, w := range a.facts {
						if w.code != factWrites {
							continue
						}
						bits, rest, _ := strings.Cut(w.msg, "\t")
						wpath, label, _ := strings.Cut(rest, "\t")
						n, _ := strconv.Atoi(bits)
						if uint8(n)&taintSecret != 0 && pathMatch(path, wpath) && a.rel != b.rel {
							report1(CodeDataExfiltration, b.rel, s.line, fmt.Sprintf("sends %s with %s, a file that %s "+
								"(line %d) fills from %s: a skill never needs to move the user's secrets off the "+
								"machine; remove it", excerptString(path), sink, a.rel, w.line, quoteLabel(label)))
						}
					}
				}
				// The output of a script of the skill that reads a secret.
				if sc := script(path); sc != nil && sc.rel != b.rel && isScript(sc.rel) {
					if sec := first(sc, factSecret); sec != nil {
						report1(CodeDataExfiltration, b.rel, s.line, fmt.Sprintf("sends what %s gives with %s, and "+
							"that script reads %s (line %d): a skill never needs to move the user's secrets off the "+
							"machine; remove it", sc.rel, sink, quoteLabel(sec.msg), sec.line))
					}
				}
			case factRuns:
				// A file another file downloads.
				for _, a := range files {
					for _, w := range a.facts {
						if w.code != factWrites || a.rel == b.rel {
							continue
						}
						bits, rest, _ := strings.Cut(w.msg, "\t")
						wpath, label, _ := strings.Cut(rest, "\t")
						n, _ := strconv.Atoi(bits)
						if uint8(n)&taintDownload != 0 && pathMatch(s.msg, wpath) && runnable(s.msg) {
							report1(CodeRemoteCode, b.rel, s.line, fmt.Sprintf("runs %s, which %s (line %d) downloads "+
								"with %s: what runs is whatever the server sends, never what was reviewed; bundle the "+
								"code, or check the download's digest before running it", excerptString(s.msg), a.rel,
								w.line, quoteLabel(label)))
						}
					}
				}
			}
		}
	}
	// A script that reads a secret and sends data, run by the skill.
	for si := range files {
		sc := &files[si]
		sec, net := first(sc, factSecret), first(sc, factNetwork)
		// A script of the skill that reads a secret file (not the
		// environment, which a script copies for the programs it starts)
		// and sends anything.
		if !isScript(sc.rel) || sec == nil || net == nil || sec.msg == envLabel || weakSecret(sec.msg) ||
			reported(CodeDataExfiltration, sc.rel, 0) {
			continue
		}
		for _, d := range files {
			if d.rel == sc.rel {
				continue
			}
			for _, r := range d.facts {
				if r.code == factRuns && script(r.msg) == sc {
					report1(CodeDataExfiltration, sc.rel, net.line, fmt.Sprintf("%s (line %d) runs this script, "+
						"which reads %s (line %d) and sends data with %s (line %d): a skill never needs to move the "+
						"user's secrets off the machine; remove it", d.rel, r.line, quoteLabel(sec.msg), sec.line,
						net.msg, net.line))
					break
				}
			}
		}
	}
	return add
}

// runnable reports whether a path names a program or a script: not a
// document or data (a SKILL.md, a .json) that a command reads.
func runnable(p string) bool {
	c := classify(strings.ToLower(p), "")
	return c&(classDoc|classMarkdown) == 0 && !binaryExt[path.Ext(strings.ToLower(p))] &&
		!strings.HasSuffix(strings.ToLower(p), ".json") && !strings.HasSuffix(strings.ToLower(p), ".yaml") &&
		!strings.HasSuffix(strings.ToLower(p), ".yml")
}

// weakSecret reports whether a secret's label names a file that
// scripts read for their own configuration (.env), which reading and
// sending something else does not make a leak.
func weakSecret(label string) bool {
	l := strings.ToLower(label)
	return strings.HasSuffix(l, ".env") || strings.Contains(l, ".env.") || l == ".env"
}

// isScript reports whether a file of the skill is a script, by its name.
func isScript(rel string) bool { return classify(rel, "")&classScript != 0 }

// cleanRef turns a path as written in a command into a path relative to
// the skill folder: quotes, ./ and the skill folder's variables dropped,
// backslashes made slashes.
func cleanRef(p string) string {
	p = strings.Trim(p, `"'`)
	p = strings.ReplaceAll(p, `\`, "/")
	for _, pre := range []string{"${CLAUDE_SKILL_DIR}/", "$CLAUDE_SKILL_DIR/", "${SKILL_DIR}/", "$SKILL_DIR/",
		"{baseDir}/", "${CLAUDE_PLUGIN_ROOT}/", "$CLAUDE_PLUGIN_ROOT/", "./"} {
		p = strings.TrimPrefix(p, pre)
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.HasPrefix(p, "$") || strings.Contains(p, "://") {
		return ""
	}
	return p
}
