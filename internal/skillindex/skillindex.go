// Package skillindex is the document of the Agent Skills Discovery RFC,
// the well-known index.json (v0.2.0 lists each skill's artifact, a
// SKILL.md or an archive, with its sha256: digest; v0.1.0 lists each
// skill's files), and the caps an installer applies to one artifact. The
// server that publishes an index (mcp, `ccski mcp --transport http`) and
// the installer that reads one (internal/install) share them, so that a
// skill published is one `ccski install` takes.
package skillindex

import "regexp"

// The RFC's paths and identifiers.
const (
	// DirV2 and DirV1 are the well-known folders of the two versions,
	// each holding index.json.
	DirV2 = "/.well-known/agent-skills/"
	DirV1 = "/.well-known/skills/"
	// SchemaV2 is the $schema of a v0.2.0 index.
	SchemaV2 = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
	// TypeSkillMD and TypeArchive are the artifact types of a v0.2.0
	// entry.
	TypeSkillMD = "skill-md"
	TypeArchive = "archive"
)

// The caps of one artifact: the `skills` CLI's (10 MiB downloaded, 25 MiB
// and 1,000 files unpacked), which are install.DefaultLimits; and the
// largest index.json an installer reads.
const (
	MaxDownload   = 10 << 20
	MaxUnpacked   = 25 << 20
	MaxFiles      = 1000
	MaxIndexBytes = 4 << 20
)

// Doc is an index.json of either version.
type Doc struct {
	// Schema is SchemaV2 for v0.2.0, empty for v0.1.0.
	Schema string  `json:"$schema,omitempty"`
	Skills []Entry `json:"skills"`
}

// Entry is one skill of an index: v0.2.0 has Type, URL and Digest;
// v0.1.0 has Files.
type Entry struct {
	Name        string   `json:"name"`
	Type        string   `json:"type,omitempty"`
	Description string   `json:"description"`
	URL         string   `json:"url,omitempty"`
	Digest      string   `json:"digest,omitempty"`
	Files       []string `json:"files,omitempty"`
}

// ValidName reports whether name may name an index entry: the Agent
// Skills naming rules, 1 to 64 lower-case ASCII letters, digits and single
// hyphens, none at either end.
func ValidName(name string) bool {
	return len(name) <= 64 && entryName.MatchString(name)
}

var entryName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
