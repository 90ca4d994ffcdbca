package mcp

// Icons for skills that name one: Codex's agents/openai.yaml
// interface.icon_small and icon_large. MCP icons are URIs, and a client
// cannot read a path on this machine, so each icon is sent inline as a
// data: URI, when it is a small image inside the skill's folder.

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/filestamp"
	"github.com/ccski/ccski/pipeline"
)

// maxIconBytes caps an icon sent inline.
const maxIconBytes = 64 << 10

// iconTypes are the image types MCP clients are asked to support.
var iconTypes = map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".svg": "image/svg+xml", ".webp": "image/webp"}

// iconKey sums up what iconsOf reads, for the signatures of registered
// resources and prompts: the icon files agents/openai.yaml names, and each
// file's stamp, so that a new icon path or an icon file changed in place
// registers the skill again.
func iconKey(r *pipeline.Record) string {
	if r.OpenAI == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range []string{r.OpenAI.IconSmall, r.OpenAI.IconLarge} {
		if p == "" {
			continue
		}
		b.WriteString(p)
		if st, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%v", filestamp.Of(st))
		}
		b.WriteByte(0)
	}
	return b.String()
}

// iconsOf returns the icons of a skill of snap as data: URIs, small
// first; an icon that is missing, too large, of another type or outside
// the skill's folder is left out, and so, under a gate, is one that is
// not what it judged.
func iconsOf(snap *pipeline.Snapshot, r *pipeline.Record) []sdk.Icon {
	if r.OpenAI == nil {
		return nil
	}
	var out []sdk.Icon
	for _, p := range []string{r.OpenAI.IconSmall, r.OpenAI.IconLarge} {
		if p == "" {
			continue
		}
		mt, ok := iconTypes[strings.ToLower(filepath.Ext(p))]
		if !ok {
			continue
		}
		rel, err := filepath.Rel(r.Dir, p)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		data, err := readInSkill(r, filepath.ToSlash(rel))
		if err != nil || len(data) > maxIconBytes || judgedOf(snap, r, filepath.ToSlash(rel)).check(data) != nil {
			continue
		}
		icon := sdk.Icon{Source: "data:" + mt + ";base64," + base64.StdEncoding.EncodeToString(data), MIMEType: mt}
		if mt == "image/svg+xml" {
			icon.Sizes = []string{"any"}
		}
		out = append(out, icon)
	}
	return out
}
