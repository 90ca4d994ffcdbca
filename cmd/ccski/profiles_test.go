package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestProfileFlags checks that the hidden --cpuprofile and --memprofile
// flags write profiles (gzip-compressed protocol buffers) when the command
// ends, that the command's output and exit code are unchanged, and that
// the flags stay out of the help.
func TestProfileFlags(t *testing.T) {
	m := setupMachine(t)
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	var plain, profiled, stderr bytes.Buffer
	run(expandArgs(m, "list --json"), &plain, &stderr) // records the trust store's first sight
	plain.Reset()
	if code := run(expandArgs(m, "list --json"), &plain, &stderr); code != exitOK {
		t.Fatalf("list: exit %d: %s", code, stderr.String())
	}
	args := append(expandArgs(m, "list --json"), "--cpuprofile", cpu, "--memprofile", mem)
	if code := run(args, &profiled, &stderr); code != exitOK {
		t.Fatalf("list with profiles: exit %d: %s", code, stderr.String())
	}
	if !bytes.Equal(plain.Bytes(), profiled.Bytes()) {
		t.Errorf("the profile flags changed the output:\n%s\n---\n%s", plain.String(), profiled.String())
	}
	for _, p := range []string{cpu, mem} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s is not a gzip-compressed profile (%d bytes)", filepath.Base(p), len(b))
		}
	}
	var help bytes.Buffer
	run([]string{"list", "--help"}, &help, &stderr)
	if bytes.Contains(help.Bytes(), []byte("profile")) {
		t.Errorf("list --help shows the hidden profile flags:\n%s", help.String())
	}
	stderr.Reset()
	var out bytes.Buffer
	bad := append(expandArgs(m, "list --json"), "--cpuprofile", filepath.Join(dir, "missing", "cpu.prof"))
	if code := run(bad, &out, &stderr); code != exitOK {
		t.Errorf("an unwritable profile changed the exit code to %d", code)
	}
	if !bytes.Contains(stderr.Bytes(), []byte("--cpuprofile")) {
		t.Errorf("an unwritable profile was not reported: %q", stderr.String())
	}
}
