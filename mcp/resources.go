package mcp

// Skill files as MCP resources, addressed as the MCP Skills Extension
// (SEP-2640) says: skill://<skill path>/<file>, where the skill path is the
// provider, the plugin or location when needed, and the skill's name
// (skill://codex/pdf/SKILL.md, skill://claude/plugins/document-skills/docx/
// SKILL.md; see pipeline/skillpath.go). Every visible skill's SKILL.md is
// listed, and the template skill://{provider}/{+path} reads any file inside
// a skill's folder. Reads never leave the folder: ".." and absolute paths
// are refused, and so is a path whose real location, symlinks resolved, is
// outside the folder's real location; the file is then opened through an
// os.Root on that folder, so a symlink swapped in between cannot lead out
// either.
//
// The URIs of earlier releases still read, for one release: the skill id
// with every byte other than a letter, a digit, '-', '.' or '_' written as
// '~' and two hex digits (skill://codex~3Apdf/SKILL.md), or any name the
// skill tool accepts (skill://pdf/SKILL.md when only one skill is called
// pdf).

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/pipeline"
)

// ResourceScheme starts every skill resource URI.
const ResourceScheme = pipeline.SkillScheme

// ResourceTemplate is the URI template of the files inside skill folders:
// {provider} is the first segment of a skill path, {+path} the rest of the
// skill path and the file's path in the skill's folder, '/' separated.
const ResourceTemplate = "skill://{provider}/{+path}"

// MaxResourceBytes is the largest file a resource read returns: 8 MiB,
// the largest file a skills/list manifest holds (base64 of it still fits
// in a 16 MiB stdio line).
const MaxResourceBytes = manifest.MaxFileBytes

// skillFile is the file name every skill resource lists.
const skillFile = pipeline.SkillFile

// resourceRegistry is the set of SKILL.md resources registered with the
// SDK, by URI, with a signature of what resources/list shows.
type resourceRegistry struct {
	registered map[string]uint64 // URI: signature of what the listing shows
}

// initResources registers the resource template; syncResources then
// keeps one listed resource per visible skill.
func (s *Server) initResources() {
	s.resources.registered = map[string]uint64{}
	s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{
		Name:  "skill-file",
		Title: "A file in a skill's folder",
		Description: "Any file inside a skill's folder (SKILL.md, references/, scripts/, assets/, ...), with its MIME type: " +
			"the skill's URI as skills/list or resources/list gives it, with SKILL.md replaced by the file's path in the folder " +
			"(skill://codex/pdf/SKILL.md -> skill://codex/pdf/references/guide.md). " +
			fmt.Sprintf("Files over %d MiB, paths with '..', and symlinks that lead out of the folder are refused.", MaxResourceBytes>>20),
		URITemplate: ResourceTemplate,
	}, s.readResource)
}

// syncResources makes the listed resources match snap's visible skills.
// Only resources that are new, changed or gone are added or removed, so a
// snapshot with the same skills sends no notifications/resources/list_changed.
// It runs with s.mu held and reports whether anything changed.
func (s *Server) syncResources(snap *pipeline.Snapshot) bool {
	reg := &s.resources
	skills := snap.Skills()
	next := make(map[string]uint64, len(skills))
	var add []*sdk.Resource
	for _, r := range skills {
		uri := r.SkillURI()
		if uri == "" {
			continue
		}
		sig := signature(r.ShortName(), r.ID, r.Description, iconKey(r)) // what the listing shows besides the URI
		next[uri] = sig
		if old, ok := reg.registered[uri]; !ok || old != sig {
			add = append(add, resourceOf(snap, uri, r))
		}
	}
	var stale []string
	for uri := range reg.registered {
		if _, ok := next[uri]; !ok {
			stale = append(stale, uri)
		}
	}
	sort.Strings(stale)
	if len(add) > 0 || len(stale) > 0 {
		s.changing(&s.news.resources)
	}
	for _, res := range add {
		s.sdk.AddResource(res, s.readResource)
	}
	if len(stale) > 0 {
		s.sdk.RemoveResources(stale...)
	}
	reg.registered = next
	return len(add) > 0 || len(stale) > 0
}

// resourceOf is the resources/list entry of a skill's SKILL.md: named by
// the skill's name, as SEP-2640 asks, and titled with its id.
func resourceOf(snap *pipeline.Snapshot, uri string, r *pipeline.Record) *sdk.Resource {
	return &sdk.Resource{
		URI:         uri,
		Name:        r.ShortName(),
		Title:       r.ID,
		Icons:       iconsOf(snap, r),
		Description: r.Description,
		MIMEType:    "text/markdown",
	}
}

// resolveURI finds the skill a skill:// URI addresses and the path of the
// file in its folder ('/' separated, "" for the folder itself): a SEP-2640
// URI, else one of the URIs earlier releases gave. A skill the user's
// filters hide is an error that says so.
func resolveURI(snap *pipeline.Snapshot, uri string) (*pipeline.Record, string, error) {
	r, rel, ok, err := snap.LoadURI(uri)
	if ok {
		return r, rel, err
	}
	name, rel, err := splitSkillURI(uri)
	if err != nil {
		return nil, "", err
	}
	if r, err = snap.Load(name, pipeline.TypeSkill); err != nil {
		return nil, "", err
	}
	return r, rel, nil
}

// splitSkillURI splits a legacy skill resource URI into the skill name and
// the file path, both unescaped; a query or fragment is dropped.
func splitSkillURI(uri string) (name, rel string, err error) {
	rest, ok := strings.CutPrefix(uri, ResourceScheme)
	if !ok {
		return "", "", errors.New("not a skill:// URI")
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	idPart, rel, ok := strings.Cut(rest, "/")
	if !ok || idPart == "" {
		return "", "", errors.New("the URI names no skill and file: use skill://<id>/<path>")
	}
	id, err := url.PathUnescape(idPart)
	if err != nil {
		return "", "", fmt.Errorf("bad escape in the skill id: %v", err)
	}
	if rel, err = url.PathUnescape(rel); err != nil {
		return "", "", fmt.Errorf("bad escape in the path: %v", err)
	}
	return pipeline.UnescapeID(id), rel, nil
}

// errOutside is the error for a path that leads out of the skill folder
// (manifest.ReadIn, manifest.Locate).
var errOutside = manifest.ErrOutside

// readResource answers resources/read for a skill file: the listed
// SKILL.md resources and the template both come here.
func (s *Server) readResource(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	snap := s.snap.Load()
	r, rel, err := resolveURI(snap, uri)
	var notFound *pipeline.NotFoundError
	switch {
	case errors.As(err, &notFound):
		return nil, sdk.ResourceNotFoundError(uri)
	case err != nil:
		return nil, invalidParams(fmt.Sprintf("%s: %v", uri, err))
	case rel == "":
		return nil, invalidParams(fmt.Sprintf("%s is a skill's folder: read a file in it (%s/SKILL.md), or list it with resources/directory/read", uri, strings.TrimSuffix(uri, "/")))
	}
	if rel == skillFile {
		rel = filepath.Base(r.File) // a disabled skill's file is .SKILL.md
	}
	data, err := readInSkill(r, rel)
	var big *manifest.TooLargeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, sdk.ResourceNotFoundError(uri)
	case errors.Is(err, errOutside):
		return nil, invalidParams(fmt.Sprintf("%s: %v; use a path inside it, such as references/<file>", uri, err))
	case errors.As(err, &big) && big.Size > 0:
		return nil, invalidParams(fmt.Sprintf("%s: the file is %d bytes, over the %d KiB limit for skill resources; read it from disk instead",
			uri, big.Size, MaxResourceBytes>>10))
	case errors.As(err, &big): // it grew while it was read
		return nil, invalidParams(fmt.Sprintf("%s: the file is over the %d KiB limit for skill resources; read it from disk instead",
			uri, MaxResourceBytes>>10))
	case err != nil:
		return nil, invalidParams(fmt.Sprintf("%s: %v", uri, err))
	}
	// Under a gate, the bytes read are served only when they are the
	// ones judged.
	if err := judgedOf(snap, r, rel).check(data); err != nil {
		s.log.Warn("skill file not served: not what the gate judged", "uri", uri, "err", err)
		return nil, invalidParams(fmt.Sprintf("%s: %v", uri, err))
	}
	mt := mimeType(rel, data)
	c := &sdk.ResourceContents{URI: uri, MIMEType: mt}
	switch {
	case len(data) == 0:
		// An empty text would be left out of the JSON, and contents with
		// neither text nor blob are invalid: send an empty blob.
		c.Blob = []byte{}
	case textual(mt) && utf8.Valid(data):
		c.Text = string(data)
	default:
		c.Blob = data
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{c}}, nil
}

// readInSkill reads the file rel ('/' separated) inside r's folder, with
// the one confined read (manifest.ReadIn). It returns an error wrapping
// fs.ErrNotExist when there is no such file, errOutside when the path
// leads out of the folder, and a *manifest.TooLargeError (Size 0 when
// the file grew past the cap while it was read) when the file is over
// MaxResourceBytes.
func readInSkill(r *pipeline.Record, rel string) ([]byte, error) {
	return manifest.ReadIn(r.FilesDir(), rel, MaxResourceBytes)
}

// locate is manifest.Locate on r's folder.
func locate(r *pipeline.Record, rel string) (realDir, inside string, err error) {
	return manifest.Locate(r.FilesDir(), rel)
}

// mimeTypes maps the extensions skills commonly bundle to a MIME type, so
// that the answer does not depend on the machine's mime.types.
var mimeTypes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain", ".text": "text/plain",
	".html": "text/html", ".htm": "text/html", ".css": "text/css", ".csv": "text/csv", ".tsv": "text/tab-separated-values",
	".xml": "application/xml", ".json": "application/json", ".jsonl": "application/jsonl", ".yaml": "application/yaml",
	".yml": "application/yaml", ".toml": "application/toml", ".ini": "text/plain", ".cfg": "text/plain",
	".py": "text/x-python", ".sh": "text/x-shellscript", ".bash": "text/x-shellscript", ".zsh": "text/x-shellscript",
	".js": "text/javascript", ".mjs": "text/javascript", ".cjs": "text/javascript", ".ts": "text/x-typescript",
	".tsx": "text/x-typescript", ".jsx": "text/javascript", ".go": "text/x-go", ".rb": "text/x-ruby", ".rs": "text/x-rust",
	".java": "text/x-java", ".c": "text/x-c", ".h": "text/x-c", ".cpp": "text/x-c++", ".sql": "application/sql",
	".ps1": "text/plain", ".bat": "text/plain", ".svg": "image/svg+xml", ".xsd": "application/xml",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
	".ico": "image/x-icon", ".pdf": "application/pdf", ".zip": "application/zip", ".gz": "application/gzip",
	".tar": "application/x-tar", ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	".ttf":  "font/ttf", ".otf": "font/otf", ".woff": "font/woff", ".woff2": "font/woff2",
	".wasm": "application/wasm", ".mp3": "audio/mpeg", ".wav": "audio/wav", ".mp4": "video/mp4",
}

// mimeType names the type of a file by its extension (mimeByName); a
// file whose extension says nothing is text/plain when it is UTF-8 text
// without NUL bytes, else application/octet-stream.
func mimeType(rel string, data []byte) string {
	if t := mimeByName(rel); t != octetStream {
		return t
	}
	if utf8.Valid(data) && !strings.ContainsRune(string(data), 0) {
		return "text/plain"
	}
	return octetStream
}

// textual reports whether a MIME type is text, to be returned as text
// rather than as a base64 blob (when the bytes are valid UTF-8).
func textual(mt string) bool {
	if strings.HasPrefix(mt, "text/") {
		return true
	}
	switch mt {
	case "application/json", "application/jsonl", "application/yaml", "application/toml", "application/xml",
		"application/sql", "application/javascript", "image/svg+xml":
		return true
	}
	return strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml")
}
