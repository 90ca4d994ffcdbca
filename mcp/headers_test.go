package mcp

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// b64 wraps s as a client sends a value that is unsafe as a plain header.
func b64(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }

// TestDecodeHeaderValue: the value a mirrored header carries, as SEP-2243
// encodes it: trimmed of the blanks HTTP allows around it, decoded when
// wrapped as =?base64?…?= (markers exact and lowercase), taken as it is
// otherwise; a wrapping around anything but padded standard Base64 of
// UTF-8 is an error, never a crash or a silent mismatch.
func TestDecodeHeaderValue(t *testing.T) {
	tests := []struct {
		name, in, want string
		err            string // a part of the error; "" for none
	}{
		{"plain", "tools/call", "tools/call", ""},
		{"blanks around", " \t skill \t", "skill", ""},
		{"non-ASCII", b64("déployer"), "déployer", ""},
		{"non-ASCII, blanks around", "  " + b64("déployer") + " ", "déployer", ""},
		{"blanks inside kept", b64(" padded "), " padded ", ""},
		{"newline", b64("line1\nline2"), "line1\nline2", ""},
		{"a literal that looks wrapped", b64("=?base64?literal?="), "=?base64?literal?=", ""},
		{"empty inside", "=?base64??=", "", ""},
		{"raw UTF-8 as the go-sdk client sends it", "déployer", "déployer", ""},
		{"no suffix: a literal", "=?base64?ZMOpcGxveWVy", "=?base64?ZMOpcGxveWVy", ""},
		{"no prefix: a literal", "ZMOpcGxveWVy?=", "ZMOpcGxveWVy?=", ""},
		{"markers are case-sensitive", "=?BASE64?ZMOpcGxveWVy?=", "=?BASE64?ZMOpcGxveWVy?=", ""},
		{"missing padding", "=?base64?SGVsbG8?=", "", "not valid Base64"},
		{"characters outside the alphabet", "=?base64?SGVs!!!bG8=?=", "", "not valid Base64"},
		{"URL alphabet", "=?base64?-_-_?=", "", "not valid Base64"},
		{"bits after the padding", "=?base64?SGVsbG9=?=", "", "not valid Base64"},
		{"not UTF-8", b64("\xff\xfe"), "", "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeHeaderValue(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("decodeHeaderValue(%q) = %q, %v; want an error with %q", tt.in, got, err, tt.err)
				}
				if !strings.Contains(err.Error(), strings.Trim(tt.in, " \t")) {
					t.Errorf("the error %q does not name the value", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("decodeHeaderValue(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestDecodeMirrored: Mcp-Method and Mcp-Name are decoded for a request
// of protocol 2026-07-28 only, on a copy of the request; other headers
// (Mcp-Param-*, which the go-sdk decodes itself) and older requests are
// left alone; a header sent twice, or not decodable, is an error naming
// it.
func TestDecodeMirrored(t *testing.T) {
	req := func(h map[string][]string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		for k, vs := range h {
			for _, v := range vs {
				r.Header.Add(k, v)
			}
		}
		return r
	}
	modern := []string{"2026-07-28"}
	tests := []struct {
		name   string
		header map[string][]string
		want   map[string]string // headers of the request returned
		err    string
	}{
		{"decoded", map[string][]string{protocolHeader: modern, methodHeader: {b64("prompts/get")}, nameHeader: {b64("déployer")},
			"Mcp-Param-Region": {b64("us-west1")}},
			map[string]string{methodHeader: "prompts/get", nameHeader: "déployer", "Mcp-Param-Region": b64("us-west1")}, ""},
		{"protocol header with blanks", map[string][]string{protocolHeader: {" 2026-07-28 "}, nameHeader: {b64("é")}},
			map[string]string{nameHeader: "é"}, ""},
		{"2025 era left alone", map[string][]string{protocolHeader: {"2025-11-25"}, nameHeader: {"=?base64?!?="}},
			map[string]string{nameHeader: "=?base64?!?="}, ""},
		{"no protocol header left alone", map[string][]string{nameHeader: {b64("é")}},
			map[string]string{nameHeader: b64("é")}, ""},
		{"not Base64", map[string][]string{protocolHeader: modern, nameHeader: {"=?base64?%%%?="}}, nil, "Mcp-Name header value"},
		{"sent twice", map[string][]string{protocolHeader: modern, methodHeader: {"tools/call", "tools/list"}}, nil, "2 Mcp-Method headers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req(tt.header)
			before := r.Header.Clone()
			got, err := decodeMirrored(r)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.want {
				if g := got.Header.Get(k); g != v {
					t.Errorf("%s: %q, want %q", k, g, v)
				}
			}
			for k, vs := range before {
				if strings.Join(r.Header[k], ",") != strings.Join(vs, ",") {
					t.Errorf("the caller's request was changed: %s %q, was %q", k, r.Header[k], vs)
				}
			}
		})
	}
}

// TestHTTPMirroredHeaders: over streamable HTTP in protocol 2026-07-28, a
// tools/call whose Mcp-Method and Mcp-Name are Base64-wrapped is served;
// one whose Mcp-Name decodes to another name is refused as a mismatch;
// one whose Mcp-Name is no Base64 gets HTTP 400 and a HeaderMismatch
// error with the request's id, naming the header.
func TestHTTPMirroredHeaders(t *testing.T) {
	_, ts := httpFixture(t, HTTPOptions{})
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"skill","arguments":{"name":"pdf"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	header := func(method, name string) map[string]string {
		return map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method, "Mcp-Name": name}
	}
	type reply struct {
		ID    json.RawMessage
		Error *struct {
			Code    int64
			Message string
		}
		Result json.RawMessage
	}
	tests := []struct {
		name     string
		header   map[string]string
		status   int
		code     int64
		contains string
	}{
		{"plain", header("tools/call", "skill"), http.StatusOK, 0, "Loading: "},
		{"Base64", header(b64("tools/call"), b64("skill")), http.StatusOK, 0, "Loading: "},
		{"Base64 of another name", header("tools/call", b64("skills")), http.StatusBadRequest, sdk.CodeHeaderMismatch, "does not match"},
		{"not Base64", header("tools/call", "=?base64?c2tpbGw?="), http.StatusBadRequest, sdk.CodeHeaderMismatch, "Mcp-Name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, body := rawRequest(t, http.MethodPost, ts.URL+"/mcp", call, tt.header)
			body = eventData(body)
			var r reply
			if err := json.Unmarshal([]byte(body), &r); err != nil {
				t.Fatalf("%d %q: %v", status, body, err)
			}
			if status != tt.status || string(r.ID) != "7" || !strings.Contains(body, tt.contains) {
				t.Errorf("%d %.300s; want %d with id 7 and %q", status, body, tt.status, tt.contains)
			}
			if tt.code != 0 && (r.Error == nil || r.Error.Code != tt.code) {
				t.Errorf("%.300s; want error %d", body, tt.code)
			}
		})
	}
}

// eventData returns the data of the first event of an event stream as
// rawRequest reads it, or body itself when it is no event stream.
func eventData(body string) string {
	for _, line := range strings.Split(body, "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			return data
		}
	}
	return body
}
