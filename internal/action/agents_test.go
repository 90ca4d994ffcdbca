package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/providers"
)

// TestChooseAgents: named agents win; else the shared folder plus what
// hostview detects (a folder in the user folder, a command on PATH);
// else the default, marked as such.
func TestChooseAgents(t *testing.T) {
	root := testfs.TempDir(t)
	testfs.Write(t, root, map[string]string{
		"withgemini/.gemini/settings.json": "{}",
		"none/":                            "",
		"bin/codex":                        "#!/bin/sh\n",
		"bin/claude":                       "not executable",
	})
	if err := os.Chmod(filepath.Join(root, "bin", "codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := func(home, path string) providers.Env {
		return providers.Env{UserDir: filepath.Join(root, home), Getenv: func(k string) string {
			if k == "PATH" {
				return path
			}
			return ""
		}}
	}
	show := func(cs []AgentChoice) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Agent+"="+strings.ReplaceAll(c.Why, root, "R"))
		}
		return strings.Join(out, "; ")
	}
	tests := []struct {
		name  string
		named []string
		env   providers.Env
		want  string
	}{
		{"named", []string{"cursor"}, env("withgemini", ""), "cursor=--agent"},
		{"folder and binary", nil, env("withgemini", filepath.Join(root, "bin")),
			"agents=shared folder; codex=detected: codex on PATH: R/bin/codex; gemini=detected: R/withgemini/.gemini exists"},
		{"none detected", nil, env("none", filepath.Join(root, "nobin")),
			"agents=default: no agent detected; claude=default: no agent detected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := show(chooseAgents(tt.named, tt.env)); got != tt.want {
				t.Errorf("chooseAgents:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}
