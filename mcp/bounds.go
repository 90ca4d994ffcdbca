package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxNameArg caps a skill or prompt name a client sends, and MaxURIArg a
// resource or skill URI: far beyond any real one (names are at most 64
// characters, ids and URIs a few hundred), and small enough that the
// error quoting a wrong one stays small. A longer one is refused before
// any lookup: with -32602, or for the skill tool's name with an isError
// result (skillArgument).
const (
	MaxNameArg = 1 << 10
	MaxURIArg  = 8 << 10
)

// tooLong is the error for an argument over its cap.
func tooLong(what string, n, limit int) error {
	return invalidParams(fmt.Sprintf("the %s is %d bytes long, over the %d-byte limit: no skill, prompt or file has one "+
		"so long; use one the server listed", what, n, limit))
}

// boundArguments refuses a prompts/get name, or a resources/read,
// skills/get or resources/directory/read URI, over its cap (the skill
// tool checks its name itself, in skillArgument).
func (s *Server) boundArguments(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch r := req.(type) {
		case *sdk.GetPromptRequest:
			if r.Params != nil && len(r.Params.Name) > MaxNameArg {
				return nil, tooLong("prompt name", len(r.Params.Name), MaxNameArg)
			}
		case *sdk.ReadResourceRequest:
			if r.Params != nil && len(r.Params.URI) > MaxURIArg {
				return nil, tooLong("URI", len(r.Params.URI), MaxURIArg)
			}
		default:
			uri := ""
			switch p := req.GetParams().(type) {
			case *getSkillParams:
				uri = p.URI
			case *readDirParams:
				uri = p.URI
			}
			if len(uri) > MaxURIArg {
				return nil, tooLong("URI", len(uri), MaxURIArg)
			}
		}
		return next(ctx, method, req)
	}
}
