package install

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/skillindex"
)

// BenchmarkInstallHTTP installs every skill of each HTTP source kind, 1
// and 100 skills, from a loopback server into a fresh project: download,
// digest checks, unpacking, discovery, copy, validation and the lock
// (op=install); op=fetch stops after the download, checks, unpacking and
// discovery, to show their share. docs/benchmarks.md has the command and
// a run.
func BenchmarkInstallHTTP(b *testing.B) {
	for _, n := range []int{1, 100} {
		s := newSite(b)
		var v2, v1 []string
		files := map[string]string{}
		for i := range n {
			name := fmt.Sprintf("skill-%03d", i)
			body := skillMD(name) + strings.Repeat("Some instructions.\n", 100)
			files[name+"/SKILL.md"] = body
			files[name+"/references/notes.md"] = strings.Repeat("notes\n", 200)
			art := "/.well-known/agent-skills/" + name + ".tar.gz"
			s.put(art, tarGzOf(b, entry{name: "SKILL.md", body: body}, entry{name: "references/notes.md", body: files[name+"/references/notes.md"]}))
			v2 = append(v2, fmt.Sprintf(`{"name": %q, "type": "archive", "description": "d", "url": %q, "digest": %q}`,
				name, art, manifest.Digest(s.files[art])))
			v1 = append(v1, fmt.Sprintf(`{"name": %q, "description": "d", "files": ["SKILL.md", "references/notes.md"]}`, name))
			s.put("/.well-known/skills/"+name+"/SKILL.md", []byte(body))
			s.put("/.well-known/skills/"+name+"/references/notes.md", []byte(files[name+"/references/notes.md"]))
		}
		s.put("/.well-known/agent-skills/index.json", []byte(`{"$schema": "`+skillindex.SchemaV2+`", "skills": [`+strings.Join(v2, ",")+`]}`))
		old := newSite(b)
		old.put("/.well-known/skills/index.json", []byte(`{"skills": [`+strings.Join(v1, ",")+`]}`))
		for p, body := range s.files {
			if strings.HasPrefix(p, "/.well-known/skills/") {
				old.put(p, body)
			}
		}
		var zipEntries, tarEntries, pkgEntries []entry
		for p, body := range files {
			zipEntries = append(zipEntries, entry{name: p, body: body})
			tarEntries = append(tarEntries, entry{name: p, body: body})
			pkgEntries = append(pkgEntries, entry{name: "skills/" + p, body: body})
		}
		pkgEntries = append(pkgEntries, entry{name: "plugin.json", body: pluginManifest("bench")})
		s.put("/dl/skills.zip", zipOf(b, zipEntries...))
		s.put("/dl/skills.tar.gz", tarGzOf(b, tarEntries...))
		s.put("/dl/package.zip", zipOf(b, pkgEntries...))
		for _, c := range []struct{ kind, url string }{
			{"index-v0.2.0", s.srv.URL},
			{"index-v0.1.0", old.srv.URL},
			{"zip", s.srv.URL + "/dl/skills.zip"},
			{"tar.gz", s.srv.URL + "/dl/skills.tar.gz"},
			{"agent-plugins-package", s.srv.URL + "/dl/package.zip"},
		} {
			for _, op := range []string{"fetch", "install"} {
				b.Run(fmt.Sprintf("%s/skills=%d/op=%s", c.kind, n, op), func(b *testing.B) {
					for b.Loop() {
						b.StopTimer()
						f := newFixture(b, nil)
						x := f.installer()
						x.HTTP = &HTTP{TempDir: b.TempDir()}
						agents, _ := ParseAgents(nil)
						b.StartTimer()
						src, err := ParseSource(c.url, ParseOptions{Cwd: f.base})
						if err != nil {
							b.Fatal(err)
						}
						root, commit, err := x.Materialize(src, "")
						if err != nil {
							b.Fatal(err)
						}
						o, err := Discover(context.Background(), root, "")
						if err != nil {
							b.Fatal(err)
						}
						if op == "fetch" {
							if len(o.Candidates) != n {
								b.Fatalf("%d skills offered, want %d", len(o.Candidates), n)
							}
							x.Close()
							continue
						}
						cands, err := Select(c.url, o, Selection{All: true})
						if err != nil {
							b.Fatal(err)
						}
						for _, r := range x.Install(src, root, commit, cands, Want{Agents: agents}) {
							if r.Status != StatusInstalled {
								b.Fatalf("%s: %s %s", r.Skill, r.Status, r.Message)
							}
						}
						if len(x.Lock.Skills) != n {
							b.Fatalf("%d skills installed, want %d", len(x.Lock.Skills), n)
						}
						x.Close()
					}
				})
			}
		}
	}
}
