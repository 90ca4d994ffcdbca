package mcp

// resources/directory/read (SEP-2640, declared with directoryRead): the
// direct children of a folder of a skill, files with their MIME type and
// size, folders as inode/directory, URIs without a trailing slash. The
// same confinement as resources/read applies: the folder is located in
// the skill's real folder (locate), and its children are the ones the
// walk of a skill's files keeps (manifest.Children, which opens the folder
// through an os.Root of the skill folder): what a manifest lists, so a
// symlink is listed only when it leads to a file inside the skill, and
// never .git.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/pipeline"
)

// dirPageSize is how many children one resources/directory/read page
// holds at most.
const dirPageSize = 500

// directoryMIME is the MIME type of a folder resource.
const directoryMIME = "inode/directory"

type readDirParams struct {
	sdk.ParamsBase
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
}

type readDirResult struct {
	sdk.ResultBase
	typedResult
	// The cache fields of resources/list, which clients model it on.
	listCache
	Resources  []*dirChild `json:"resources"`
	NextCursor string      `json:"nextCursor,omitempty"`
}

// dirChild is one child of a folder: a file with its size (0 too, which
// sdk.Resource would leave out) and its MIME type when its name says it,
// or a folder (inode/directory), which has no size.
type dirChild struct {
	URI      string `json:"uri"`
	Name     string `json:"name"`
	MIMEType string `json:"mimeType,omitempty"`
	Size     *int64 `json:"size,omitempty"`
}

// readDirectory answers resources/directory/read.
func (s *Server) readDirectory(_ context.Context, _ *sdk.ServerSession, p *readDirParams) (*readDirResult, error) {
	if p == nil || p.URI == "" {
		return nil, invalidParams("resources/directory/read: params.uri is required: a skill's folder, such as skill://codex/pdf or skill://codex/pdf/references")
	}
	uri := strings.TrimSuffix(p.URI, "/")
	snap := s.snap.Load()
	r, rel, err := resolveURI(snap, uri)
	var notFound *pipeline.NotFoundError
	switch {
	case errors.As(err, &notFound):
		return nil, resourceNotFound(p.URI, err.Error())
	case err != nil:
		return nil, invalidParams(fmt.Sprintf("resources/directory/read: %s: %v", p.URI, err))
	}
	if r.SkillPath == "" {
		return nil, invalidParams(fmt.Sprintf("resources/directory/read: %s names no skill folder", p.URI))
	}
	realDir, inside, err := locate(r, rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, resourceNotFound(p.URI, "no such folder in the skill")
		}
		return nil, invalidParams(fmt.Sprintf("resources/directory/read: %s: %v", p.URI, err))
	}
	after := ""
	if p.Cursor != "" {
		last, ok := decodeCursor(p.Cursor)
		if !ok {
			return nil, invalidParams(fmt.Sprintf("resources/directory/read: cursor %q is not one this server gave; start again without a cursor", p.Cursor))
		}
		after = last
	}
	children, more, err := manifest.Children(realDir, filepath.ToSlash(inside), after, dirPageSize)
	if err != nil {
		if st, serr := os.Stat(filepath.Join(realDir, inside)); serr == nil && !st.IsDir() {
			return nil, invalidParams(fmt.Sprintf("resources/directory/read: %s is not a folder; read a file with resources/read", p.URI))
		}
		return nil, invalidParams(fmt.Sprintf("resources/directory/read: %s: %v", p.URI, safefile.Cause(err)))
	}
	base := pathBase(r.SkillPath, rel)
	res := &readDirResult{listCache: s.cacheFields(), Resources: []*dirChild{}}
	listed := judgedChild(snap, r) // under a gate, only what it judged
	for _, c := range children {
		if listed != nil && c.Kind != manifest.KindLink && !listed(c.Path, c.Kind == manifest.KindFolder) {
			continue
		}
		name := path.Base(c.Path)
		item := &dirChild{URI: base + "/" + escapeSegment(name), Name: name}
		switch c.Kind {
		case manifest.KindFolder:
			item.MIMEType = directoryMIME
		case manifest.KindFile:
			item.Size = ptr(c.Info.Size())
			if mt := mimeByName(name); mt != octetStream {
				item.MIMEType = mt // else unknown until read (resources/read looks at the bytes)
			}
		default:
			continue // a recorded link: nothing of the skill to serve
		}
		res.Resources = append(res.Resources, item)
	}
	if more && len(children) > 0 {
		res.NextCursor = encodeCursor(path.Base(children[len(children)-1].Path))
	}
	return res, nil
}

// pathBase is the URI of the folder rel of the skill at skillPath.
func pathBase(skillPath, rel string) string {
	out := ResourceScheme + skillPath
	if rel == "" {
		return out
	}
	for _, seg := range strings.Split(rel, "/") {
		out += "/" + escapeSegment(seg)
	}
	return out
}

// mimeByName names a file's MIME type from its extension alone, without
// reading it: resources/read, which has the bytes, may be more precise
// about a file with an unknown extension.
func mimeByName(name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	if t, ok := mimeTypes[ext]; ok {
		return t
	}
	if ext != "" {
		if t := mime.TypeByExtension(ext); t != "" {
			t, _, _ = strings.Cut(t, ";")
			return t
		}
	}
	return octetStream
}

// octetStream is the MIME type of bytes of no known type.
const octetStream = "application/octet-stream"
