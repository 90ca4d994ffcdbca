package providers

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilesWriteRefusesChangedFiles: a file another program wrote after
// it was read (or made, when it was missing) is left as that program
// wrote it, and no file of the set is written when one of them changed.
func TestFilesWriteRefusesChangedFiles(t *testing.T) {
	tests := []struct {
		name   string
		before map[string]string // the files when read; missing ones are absent
		other  map[string]string // what another program writes before Write
		want   map[string]string // the files after Write
		failed string            // the file Write names, or "" for success
	}{
		{name: "unchanged", before: map[string]string{"a": "1", "b": "1"}, other: nil,
			want: map[string]string{"a": "new a", "b": "new b"}},
		{name: "changed meanwhile", before: map[string]string{"a": "1", "b": "1"}, other: map[string]string{"b": "2"},
			want: map[string]string{"a": "1", "b": "2"}, failed: "b"},
		{name: "made meanwhile", before: map[string]string{"a": "1"}, other: map[string]string{"b": "theirs"},
			want: map[string]string{"a": "1", "b": "theirs"}, failed: "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := func(n string) string { return filepath.Join(dir, n) }
			for n, c := range tt.before {
				os.WriteFile(p(n), []byte(c), 0o644)
			}
			fs := NewFiles()
			for _, n := range []string{"a", "b"} {
				if _, _, err := fs.Read(p(n)); err != nil {
					t.Fatal(err)
				}
				fs.Set(p(n), []byte("new "+n))
			}
			for n, c := range tt.other {
				os.WriteFile(p(n), []byte(c), 0o644)
			}
			err := fs.Write()
			var ce *ChangedError
			switch {
			case tt.failed == "" && err != nil:
				t.Fatal(err)
			case tt.failed != "" && (!errors.As(err, &ce) || ce.File != p(tt.failed) || !strings.Contains(err.Error(), "run the command again")):
				t.Fatalf("got %v, want a ChangedError naming %s", err, tt.failed)
			}
			for n, c := range tt.want {
				if got, _ := os.ReadFile(p(n)); string(got) != c {
					t.Errorf("%s holds %q, want %q", n, got, c)
				}
			}
		})
	}
}

// TestFilesWriteSaysWhyEachFileWasNotWritten: when a file cannot be
// written, it holds the reason, the files after it say they were not
// written because of it, and those written before it hold no error.
func TestFilesWriteSaysWhyEachFileWasNotWritten(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	for _, n := range []string{"a", "b", "c"} {
		os.WriteFile(p(n), []byte("1"), 0o644)
	}
	fs := NewFiles()
	for _, n := range []string{"a", "b", "c"} {
		if _, _, err := fs.Read(p(n)); err != nil {
			t.Fatal(err)
		}
		fs.Set(p(n), []byte("new "+n))
	}
	// b becomes a folder after it was read.
	os.Remove(p("b"))
	os.Mkdir(p("b"), 0o755)
	err := fs.Write()
	if err == nil {
		t.Fatal("Write of a file turned into a folder succeeded")
	}
	states := map[string]*FileState{}
	for _, f := range fs.Changed() {
		states[filepath.Base(f.Path)] = f
	}
	if states["a"].Err == nil || states["b"].Err == nil || states["c"].Err == nil {
		t.Fatalf("a file not written holds no error: a %v, b %v, c %v", states["a"].Err, states["b"].Err, states["c"].Err)
	}
	if !strings.Contains(states["b"].Err.Error(), p("b")) || !strings.Contains(states["b"].Err.Error(), "folder") {
		t.Errorf("b's error does not name it and why: %v", states["b"].Err)
	}
	for _, n := range []string{"a", "c"} {
		if msg := states[n].Err.Error(); !strings.Contains(msg, p(n)+" was not written, because "+p("b")) {
			t.Errorf("%s's error does not say b stopped it: %s", n, msg)
		}
		if got, _ := os.ReadFile(p(n)); string(got) != "1" {
			t.Errorf("%s was written: %q", n, got)
		}
	}
}

// TestWriteRoot: a file of the user's own (a host's folder, or another
// folder of the home that is no workspace's) belongs to the user's home
// folder; a file of a workspace to the outermost workspace folder that
// holds it; a host folder outside the home folder, and any other file, to
// its own folder.
func TestWriteRoot(t *testing.T) {
	j := filepath.Join
	home, repo := filepath.FromSlash("/home/u"), filepath.FromSlash("/work/repo")
	env := Env{UserDir: home, Workspace: j(repo, "sub"), WorkspaceDirs: []string{j(repo, "sub"), repo},
		Homes: map[string]string{"claude": j(home, ".claude"), "codex": j(home, "codex-home"), "x": "/srv/x-config"}}
	for path, want := range map[string]string{
		j(home, ".claude", "settings.json"):        home,
		j(home, "codex-home", "config.toml"):       home,
		j(home, ".gemini", "settings.json"):        home,
		j(home, ".agents", "skills", "pdf"):        home,
		"/srv/x-config/settings.json":              "/srv/x-config",
		"/opt/skills/pdf":                          "/opt/skills",
		j(repo, ".claude", "settings.json"):        repo,
		j(repo, "sub", ".claude", "settings.json"): repo,
		j(repo, "sub", "CLAUDE.md"):                repo,
	} {
		if got := env.WriteRoot(path); got != want {
			t.Errorf("WriteRoot(%s) = %s, want %s", path, got, want)
		}
	}
	// A workspace that is the home folder: a host's file is the user's.
	env = Env{UserDir: home, Workspace: home, Homes: map[string]string{"claude": j(home, ".claude")}}
	if got := env.WriteRoot(j(home, ".claude", "settings.json")); got != home {
		t.Errorf("in the home folder: got %s", got)
	}
	// A project inside the home folder keeps its own root.
	proj := j(home, "src", "proj")
	env = Env{UserDir: home, Workspace: proj, Homes: map[string]string{"claude": j(home, ".claude")}}
	if got := env.WriteRoot(j(proj, ".claude", "settings.local.json")); got != proj {
		t.Errorf("a project in the home folder: got %s", got)
	}
}

// TestFilesCommitUsesItsLastRun: a plan that reads one more folder in
// each run under the locks, up to as many runs as Commit locks for, and
// then reads no new one, is written: the run made with the last locks is
// checked too, not taken for one that kept changing. One more new folder
// than that is a failure that says so, and writes nothing.
func TestFilesCommitUsesItsLastRun(t *testing.T) {
	for _, extra := range []int{0, 1} {
		base := t.TempDir()
		dir := func(i int) string { return filepath.Join(base, fmt.Sprint(i)) }
		for i := range maxCommitRuns + 2 {
			os.MkdirAll(dir(i), 0o755)
		}
		file := filepath.Join(dir(0), "settings")
		fs := NewFiles()
		runs := 0
		err := fs.Commit(func() {
			runs++
			for i := 1; i < min(runs, maxCommitRuns+extra); i++ {
				if _, _, err := fs.Read(filepath.Join(dir(i), "settings")); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := EditFile(fs, file, func([]byte) ([]byte, error) { return []byte("on\n"), nil }); err != nil {
				t.Fatal(err)
			}
		}, nil)
		got, _ := os.ReadFile(file)
		if extra == 0 && (err != nil || string(got) != "on\n") {
			t.Errorf("%d runs: %v, wrote %q", runs, err, got)
		}
		if extra == 1 && (err == nil || !strings.Contains(err.Error(), "kept changing") || got != nil) {
			t.Errorf("a plan that keeps reading new folders: %v, wrote %q", err, got)
		}
	}
}

// TestFilesRemove: a file the set removes is deleted by Commit, unless
// another program changed it since it was read; Rollback brings it back,
// and a later Set keeps it.
func TestFilesRemove(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	write := func(s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("{}\n")
	fs := NewFiles()
	if _, _, err := fs.Read(p); err != nil {
		t.Fatal(err)
	}
	m := fs.Mark()
	fs.Remove(p)
	if ch := fs.Changed(); len(ch) != 1 || !ch[0].Removed {
		t.Fatalf("changed after Remove: %+v", ch)
	}
	fs.Rollback(m)
	if len(fs.Changed()) != 0 {
		t.Fatal("Rollback kept the removal")
	}
	fs.Remove(p)
	fs.Set(p, []byte("{\"a\": 1}\n"))
	if ch := fs.Changed(); len(ch) != 1 || ch[0].Removed {
		t.Fatalf("Set after Remove: %+v", ch)
	}

	// Commit deletes it.
	err := fs.Commit(func() {
		if _, _, err := fs.Read(p); err != nil {
			t.Fatal(err)
		}
		fs.Remove(p)
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(p); !os.IsNotExist(err) {
		t.Fatalf("the file is still there: %v", err)
	}

	// Changed meanwhile: left as the other program wrote it.
	write("{}\n")
	fs = NewFiles()
	if _, _, err := fs.Read(p); err != nil {
		t.Fatal(err)
	}
	fs.Remove(p)
	write("{\"theirs\": true}\n")
	var ce *ChangedError
	if err := fs.Write(); !errors.As(err, &ce) {
		t.Fatalf("Write: %v, want a ChangedError", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "{\"theirs\": true}\n" {
		t.Errorf("file: %q", got)
	}
}

// TestClientHost: a client's clientInfo name picks its host, exactly or
// followed by "-" and more, and nothing else does.
func TestClientHost(t *testing.T) {
	hosts := []Host{{Name: "claude", Clients: []string{"claude-code"}}, {Name: "gemini", Clients: []string{"gemini-cli-mcp-client"}}}
	for client, want := range map[string]string{
		"claude-code": "claude", "Claude-Code": "claude", "gemini-cli-mcp-client-skills": "gemini",
		"claude-codex": "", "claude": "", "": "", "cursor-vscode": "",
	} {
		if got := ClientHost(hosts, client); got != want {
			t.Errorf("ClientHost(%q) = %q, want %q", client, got, want)
		}
	}
}
