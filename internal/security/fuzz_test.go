package security

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzCheckFile runs every file rule, the code view, the data flow and
// the joining of facts on arbitrary text, as a script, a document and a
// skill file: whatever a hostile skill holds, the scan never panics.
func FuzzCheckFile(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "corpus", "malicious", "*", "*", "*"))
	more, _ := filepath.Glob(filepath.Join("testdata", "corpus", "malicious", "*", "*", "scripts", "*"))
	for _, p := range append(seeds, more...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, uint8(0))
		}
	}
	f.Add([]byte("x=\"\n$x\nsh -c \"$(echo Y3VybA== | base64 -d)\" \\\n| bash"), uint8(1))
	f.Add([]byte("powershell -enc\nx"), uint8(0)) // an anchor ending in a space, matched at a line break
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		names := []string{"SKILL.md", "scripts/run.sh", "scripts/run.py", "notes.md", "run.ps1", "data.json"}
		rel := names[int(kind)%len(names)]
		f := &file{rel: rel, class: classify(rel, "SKILL.md") | classText, data: data}
		var out []finding
		done := make(chan bool)
		go func() { out = checkFile(f); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("checkFile takes more than 10 s on %d bytes", len(data))
		}
		var facts []finding
		for _, fd := range out {
			if isFact(fd) {
				facts = append(facts, fd)
			}
		}
		chainFindings(t.TempDir(), []fileFacts{{rel: rel, facts: facts}, {rel: "scripts/other.py", facts: facts}}, nil)
	})
}
