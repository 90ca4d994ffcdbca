package mcp

// What a result or an error says depends on the protocol era of the
// request it answers, decided as the SDK decides it: a request whose
// _meta names protocol 2026-07-28 or later (SEP-2575) is of the new era,
// any other (a 2025-11-25 session's) of the old one. One middleware,
// eraResults, applies the differences to every method the server answers:
//
//   - In 2026-07-28 every result carries resultType (SEP-2322). The SDK
//     sets it on the results of its own methods; the Skills extension's
//     results (skills/list, skills/get, resources/directory/read) embed
//     typedResult, which eraResults sets.
//   - "Resource not found" is -32602 in 2026-07-28 (SEP-2164), as the SDK
//     answers it, and -32002 before, as the 2025-11-25 schema defines it.

import (
	"context"
	"reflect"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// resultComplete is the resultType of a final result.
const resultComplete = "complete"

// typedResult is the resultType of a result the server builds itself;
// eraResults sets it for 2026-07-28 requests and leaves it out of older
// ones.
type typedResult struct {
	ResultType string `json:"resultType,omitempty"`
}

func (r *typedResult) setComplete() { r.ResultType = resultComplete }

// completable is a result that embeds typedResult.
type completable interface{ setComplete() }

var (
	_ completable = (*listSkillsResult)(nil)
	_ completable = (*listSkillsPage)(nil)
	_ completable = (*getSkillResult)(nil)
	_ completable = (*readDirResult)(nil)
)

// newEraRequest reports whether req follows protocol 2026-07-28 or
// later: its _meta names that version, as the SDK checks it.
func newEraRequest(req sdk.Request) bool {
	if req == nil {
		return false
	}
	p := req.GetParams()
	if p == nil || reflect.ValueOf(p).IsNil() { // a notification may carry typed nil params
		return false
	}
	v, _ := p.GetMeta()[sdk.MetaKeyProtocolVersion].(string)
	return v >= statelessEra
}

// eraResults makes every answer what the request's era says (see the
// top of this file).
func (s *Server) eraResults(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		newEra := newEraRequest(req)
		if c, ok := res.(completable); ok && err == nil && newEra {
			c.setComplete()
		}
		if err != nil && (method == "resources/read" || method == "resources/directory/read") {
			err = resourceNotFoundIn(newEra, err)
		}
		return res, err
	}
}

// notFoundMessage is the message of sdk.ResourceNotFoundError.
const notFoundMessage = "Resource not found"

// resourceNotFound is sdk.ResourceNotFoundError for uri with why after
// its message: resources/directory/read's answer for a folder or a skill
// that does not exist, which eraResults gives the code of its era as it
// does resources/read's.
func resourceNotFound(uri, why string) error {
	e := *sdk.ResourceNotFoundError(uri).(*jsonrpc.Error)
	e.Message = notFoundMessage + ": " + why
	return &e
}

// resourceNotFoundIn gives a "resource not found" error (the SDK's
// sdk.ResourceNotFoundError, which resources/read returns for a URI no
// skill has, or resourceNotFound) the code of its era; any other error is
// returned as it is.
func resourceNotFoundIn(newEra bool, err error) error {
	we, ok := err.(*jsonrpc.Error)
	if !ok || we.Message != notFoundMessage && !strings.HasPrefix(we.Message, notFoundMessage+": ") ||
		we.Code != jsonrpc.CodeInvalidParams && we.Code != codeResourceNotFound {
		return err
	}
	code := int64(codeResourceNotFound)
	if newEra {
		code = jsonrpc.CodeInvalidParams
	}
	if we.Code == code {
		return err
	}
	out := *we
	out.Code = code
	return &out
}
