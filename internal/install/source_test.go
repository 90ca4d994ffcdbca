package install

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
)

// TestParseSource reads every form of SOURCE: URLs with @ref and #path,
// scp-like and owner/repo shorthands, local folders and files, and
// marketplace names; a path that exists wins over the shorthand.
func TestParseSource(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"skills/pdf/SKILL.md":                 "x",
		"mkt/.claude-plugin/marketplace.json": "{}",
		"cx/.agents/plugins/marketplace.json": "{}",
		"owner/repo/SKILL.md":                 "x",
		"notes.txt":                           "x",
		"home/stuff/SKILL.md":                 "x",
		"plain/marketplace.json":              "{}",
		"plain/other/":                        "",
	})
	known := func(name string) (string, bool, []string) {
		if name == "official" {
			return "/m/official", true, nil
		}
		return "", false, []string{"official"}
	}
	o := ParseOptions{Cwd: base, Home: filepath.Join(base, "home"), Marketplace: known}
	tests := []struct {
		arg, ref, path string
		want           Source
		err            string
	}{
		{arg: "https://example.com/o/r.git", want: Source{Kind: KindGit, URL: "https://example.com/o/r.git"}},
		{arg: "https://example.com/o/r.git@v1.2#skills/pdf", want: Source{Kind: KindGit, URL: "https://example.com/o/r.git", Ref: "v1.2", Path: "skills/pdf"}},
		{arg: "https://github.com/o/r/tree/main/skills/pdf", want: Source{Kind: KindGit, URL: "https://github.com/o/r.git", Ref: "main", Path: "skills/pdf"}},
		{arg: "file:///srv/repo.git@abc", want: Source{Kind: KindGit, URL: "file:///srv/repo.git", Ref: "abc"}},
		{arg: "ssh://git@host/o/r.git", want: Source{Kind: KindGit, URL: "ssh://git@host/o/r.git"}},
		{arg: "git@github.com:o/r.git", want: Source{Kind: KindGit, URL: "git@github.com:o/r.git"}},
		{arg: "git@github.com:o/r.git@dev", want: Source{Kind: KindGit, URL: "git@github.com:o/r.git", Ref: "dev"}},
		{arg: "anthropics/skills", want: Source{Kind: KindGit, URL: "https://github.com/anthropics/skills.git"}},
		{arg: "anthropics/skills@main#skills/pdf", want: Source{Kind: KindGit, URL: "https://github.com/anthropics/skills.git", Ref: "main", Path: "skills/pdf"}},
		{arg: "anthropics/skills", ref: "v2", path: "./skills/", want: Source{Kind: KindGit, URL: "https://github.com/anthropics/skills.git", Ref: "v2", Path: "skills"}},
		{arg: "owner/repo", want: Source{Kind: KindDir, Dir: filepath.Join(base, "owner/repo")}},
		{arg: "./skills", want: Source{Kind: KindDir, Dir: filepath.Join(base, "skills")}},
		{arg: "skills/pdf/SKILL.md", want: Source{Kind: KindDir, Dir: filepath.Join(base, "skills/pdf")}},
		{arg: "~/stuff", want: Source{Kind: KindDir, Dir: filepath.Join(base, "home/stuff")}},
		{arg: "mkt/.claude-plugin/marketplace.json", want: Source{Kind: KindDir, Dir: filepath.Join(base, "mkt"), Path: ".claude-plugin/marketplace.json"}},
		{arg: "cx/.agents/plugins/marketplace.json", want: Source{Kind: KindDir, Dir: filepath.Join(base, "cx"), Path: ".agents/plugins/marketplace.json"}},
		{arg: "plain/marketplace.json", want: Source{Kind: KindDir, Dir: filepath.Join(base, "plain"), Path: "marketplace.json"}},
		{arg: "official", want: Source{Kind: KindMarketplace, Name: "official", Dir: "/m/official"}},
		{arg: "offical", err: "the marketplaces Claude Code knows are official"},
		{arg: "notes.txt", err: "no SKILL.md or marketplace.json"},
		{arg: "./missing", err: "does not exist"},
		{arg: "https://example.com/o/r.git@v1", ref: "v2", err: "names ref v1 but --ref says v2"},
		{arg: "o/r#../../etc", err: "must stay inside the source"},
		{arg: "./skills", ref: "main", err: "is not a git repository"},
		{arg: "ssh://example.com", err: "names no repository"},
		{arg: "https://example.com", want: Source{Kind: KindIndex, URL: "https://example.com"}}, // its well-known index
		{arg: "", err: "empty source"},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			o := o
			o.Ref, o.Path = tt.ref, tt.path
			got, err := ParseSource(tt.arg, o)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseSource(%q) = %+v, %v; want an error holding %q", tt.arg, got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseSource(%q) mismatch (-want +got):\n%s", tt.arg, diff)
			}
		})
	}
}

// TestSourceString writes a source as it can be typed again.
func TestSourceString(t *testing.T) {
	tests := []struct {
		src  Source
		want string
	}{
		{Source{Kind: KindGit, URL: "https://github.com/o/r.git", Ref: "v1", Path: "skills"}, "o/r@v1#skills"},
		{Source{Kind: KindGit, URL: "file:///x.git"}, "file:///x.git"},
		{Source{Kind: KindDir, Dir: "/a/b", Path: ".claude-plugin/marketplace.json"}, "/a/b#.claude-plugin/marketplace.json"},
		{Source{Kind: KindMarketplace, Name: "m"}, "m"},
	}
	for _, tt := range tests {
		if got := tt.src.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.src, got, tt.want)
		}
	}
}

// TestKindArtifactAndRemote: the artifact kinds record an artifact's
// digest as Commit; every kind fetched over HTTP, MCP included, is remote.
func TestKindArtifactAndRemote(t *testing.T) {
	for _, tc := range []struct {
		k                Kind
		artifact, remote bool
	}{
		{KindGit, false, false}, {KindDir, false, false}, {KindMarketplace, false, false},
		{KindIndex, true, true}, {KindArchive, true, true}, {KindMCP, false, true},
	} {
		if a, r := tc.k.Artifact(), tc.k.Remote(); a != tc.artifact || r != tc.remote {
			t.Errorf("%s: Artifact() = %v, Remote() = %v; want %v, %v", tc.k, a, r, tc.artifact, tc.remote)
		}
	}
}
