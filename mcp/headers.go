package mcp

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The standard request headers of protocol 2026-07-28 (SEP-2243): a
// client mirrors the body's method into Mcp-Method, and the name of the
// tool or prompt, or the URI of the resource, into Mcp-Name; the go-sdk
// checks both against the body. (It decodes the Mcp-Param-* headers of
// tool arguments itself.)
const (
	methodHeader = "Mcp-Method"
	nameHeader   = "Mcp-Name"
)

// mirroredHeaders are the headers decodeMirrored decodes.
var mirroredHeaders = []string{methodHeader, nameHeader}

// A value that is not safe as a plain header value (non-ASCII, control
// characters, leading or trailing blanks, or the look of this wrapping
// itself) travels as =?base64?<standard Base64 of its UTF-8>?=; the
// markers are case-sensitive.
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// decodeHeaderValue returns the value a mirrored header carries: v
// without the optional whitespace HTTP allows around a field value, and
// decoded when it is wrapped as =?base64?…?=. A value not so wrapped is
// taken as it is, even when it holds non-ASCII bytes (the go-sdk's client
// sends names so). A wrapped value that is not standard Base64 with its
// padding, or does not decode to UTF-8, is an error.
func decodeHeaderValue(v string) (string, error) {
	v = strings.Trim(v, " \t")
	inner, ok := strings.CutPrefix(v, base64Prefix)
	if !ok {
		return v, nil
	}
	inner, ok = strings.CutSuffix(inner, base64Suffix)
	if !ok {
		return v, nil
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(inner)
	if err != nil {
		return "", fmt.Errorf("%q is not valid Base64 between =?base64? and ?= (standard alphabet, with = padding): %v", v, err)
	}
	if !utf8.Valid(raw) {
		return "", fmt.Errorf("%q does not decode to UTF-8 text", v)
	}
	return string(raw), nil
}

// decodeMirrored returns r with its mirrored headers (Mcp-Method,
// Mcp-Name) decoded as decodeHeaderValue reads them, for the go-sdk to
// compare with the body: it compares the raw header, so a name a client
// had to send Base64-encoded (a prompt named déployer) never matched. r
// itself is returned when nothing changes. Only requests of protocol
// 2026-07-28 or later carry these headers; others are returned as they
// are. A header that does not decode is an error naming it.
func decodeMirrored(r *http.Request) (*http.Request, error) {
	if strings.Trim(r.Header.Get(protocolHeader), " \t") < statelessEra {
		return r, nil
	}
	var h http.Header
	for _, name := range mirroredHeaders {
		vs := r.Header.Values(name)
		if len(vs) == 0 {
			continue
		}
		if len(vs) > 1 {
			return nil, fmt.Errorf("%d %s headers: send one", len(vs), name)
		}
		got, err := decodeHeaderValue(vs[0])
		if err != nil {
			return nil, fmt.Errorf("%s header value %w", name, err)
		}
		if got == vs[0] {
			continue
		}
		if h == nil {
			h = r.Header.Clone()
		}
		h.Set(name, got)
	}
	if h == nil {
		return r, nil
	}
	r2 := r.Clone(r.Context())
	r2.Header = h
	return r2, nil
}

// refuseHeader answers a request whose mirrored header does not decode:
// HTTP 400 with a JSON-RPC HeaderMismatch error, as the go-sdk answers a
// header that does not match the body.
func refuseHeader(w http.ResponseWriter, body *postBody, err error) {
	writeRPCError(w, http.StatusBadRequest, body.singleID(), sdk.CodeHeaderMismatch, "header mismatch: "+err.Error())
}
