package mcp

// The operators' log: what the server writes to stderr about its clients
// and their streams. A server that runs for days meets clients that make
// mistakes (a bad header, a session that expired, invalid params) and
// clients that go away without a word, and the lines about them must not
// bury the ones an operator has to act on. One place decides the level of
// every such line, whether ccski or the go-sdk writes it:
//
//   - a real fault of the server (a skill that cannot be read, a session
//     that would not close, the SDK's internal errors) stays at WARN or
//     ERROR;
//   - a client's mistake is logged at INFO the first time that client (a
//     session; the remote host, for a request without one; the one
//     client of stdio) makes one, and at DEBUG after
//     (opLog.clientMistake);
//   - a notification that cannot reach its client (its session never
//     opened its stream, or is gone) is dropped at DEBUG (notifyGate
//     skips the sessions that never listen; the SDK's own line for a
//     failed one is lowered by sdkHandler);
//   - the SDK's information lines (sessions connected, initialized) are
//     kept at DEBUG.

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxTold bounds how many clients opLog remembers having logged a mistake
// of: past it, it forgets them all, and each may get one more INFO line.
const maxTold = 4096

// opLog writes the server's lines about its clients at the level they
// deserve (see the top of this file).
type opLog struct {
	log *slog.Logger

	mu   sync.Mutex
	told map[client]bool // clients whose first mistake was logged at INFO
}

func newOpLog(log *slog.Logger) *opLog {
	return &opLog{log: log, told: map[client]bool{}}
}

// client names who made a mistake: a session, a remote host (for a
// request without a session) or the one client of stdio. key is the attribute the
// log line names it by.
type client struct{ key, value string }

// stdioClient is the one client of the stdio transport.
var stdioClient = client{"transport", "stdio"}

// clientOf names the client of an HTTP request: its session when it
// names one, else the host it comes from (not its port: each connection
// of one client has its own).
func clientOf(r *http.Request) client {
	if id := r.Header.Get(sessionHeader); id != "" {
		return client{"session", id}
	}
	q := r.URL.Query() // an SSE message names its session here
	for _, k := range []string{"sessionid", "sessionId"} {
		if id := q.Get(k); id != "" {
			return client{"session", id}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return client{"remote", host}
}

// clientMistake logs msg, a mistake of client c the server answered (a
// refused request, an error result): at INFO the first time c makes one,
// at DEBUG after, so that a client repeating a bad request does not fill
// the log.
func (o *opLog) clientMistake(ctx context.Context, c client, msg string, args ...any) {
	level := slog.LevelDebug
	o.mu.Lock()
	if !o.told[c] {
		if len(o.told) >= maxTold {
			clear(o.told)
		}
		o.told[c] = true
		level = slog.LevelInfo
	}
	o.mu.Unlock()
	if !o.log.Enabled(ctx, level) {
		return
	}
	args = append([]any{c.key, c.value}, args...)
	if level == slog.LevelInfo {
		args = append(args, "further", "at debug level")
	}
	o.log.Log(ctx, level, "client mistake: "+msg, args...)
}

// notDelivered logs, at DEBUG, a notification dropped because its
// client cannot receive it.
func (o *opLog) notDelivered(ctx context.Context, method string, ss *sdk.ServerSession, why string) {
	o.log.Log(ctx, slog.LevelDebug, "notification not sent", "method", method, "session", ss.ID(), "reason", why)
}

// sdk returns the logger to hand the go-sdk: its lines go through
// sdkHandler.
func (o *opLog) sdk() *slog.Logger { return slog.New(sdkHandler{o.log.Handler()}) }

// sdkLevel classifies a line of the go-sdk by its message, which is all
// the SDK gives (it names no session): keep says whether the line is
// logged at all, at level.
func sdkLevel(msg string, level slog.Level) (slog.Level, bool) {
	switch {
	case strings.Contains(msg, "server run cancelled"):
		// A normal stdio shutdown, which the SDK logs at ERROR.
		return 0, false
	case strings.HasPrefix(msg, "calling notifications/"):
		// A notification the client's stream was not there to receive
		// ("stream not connected or already closed"): the client went
		// away, or never opened the stream.
		return slog.LevelDebug, true
	case sdkClientMistake(msg):
		// The client is answered with the error; ccski logs the HTTP
		// refusals once per client (observeMistakes).
		return slog.LevelDebug, true
	case level < slog.LevelWarn:
		// Sessions connected, initialized, disconnected: one line each,
		// for every client.
		return slog.LevelDebug, true
	}
	return level, true
}

// sdkClientMistakes are the go-sdk's lines about a client's mistake, each
// the start of its message.
var sdkClientMistakes = []string{
	"method invalid during initialization",
	"initialized before initialize",
	"duplicate initialized notification",
	"duplicate initialize request",
	"method removed in the new protocol",
	"rejecting request with protocol version",
}

func sdkClientMistake(msg string) bool {
	for _, p := range sdkClientMistakes {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// sdkHandler passes the go-sdk's lines on at the level sdkLevel gives them.
type sdkHandler struct{ h slog.Handler }

func (s sdkHandler) Enabled(ctx context.Context, l slog.Level) bool {
	// A line may be lowered to DEBUG, never raised.
	return s.h.Enabled(ctx, slog.LevelDebug) || (l >= slog.LevelWarn && s.h.Enabled(ctx, l))
}

func (s sdkHandler) Handle(ctx context.Context, r slog.Record) error {
	level, keep := sdkLevel(r.Message, r.Level)
	if !keep || !s.h.Enabled(ctx, level) {
		return nil
	}
	if level != r.Level {
		nr := slog.NewRecord(r.Time, level, r.Message, r.PC)
		r.Attrs(func(a slog.Attr) bool { nr.AddAttrs(a); return true })
		r = nr
	}
	return s.h.Handle(ctx, r)
}

func (s sdkHandler) WithAttrs(as []slog.Attr) slog.Handler { return sdkHandler{s.h.WithAttrs(as)} }
func (s sdkHandler) WithGroup(name string) slog.Handler    { return sdkHandler{s.h.WithGroup(name)} }

// clientErrorCodes are the JSON-RPC error codes that say the client asked
// for something wrong, not that the server failed.
var clientErrorCodes = map[int64]string{
	jsonrpc.CodeParseError:     "parse error",
	jsonrpc.CodeInvalidRequest: "invalid request",
	jsonrpc.CodeMethodNotFound: "method not found",
	jsonrpc.CodeInvalidParams:  "invalid params",
	codeResourceNotFound:       "resource not found",
}

// codeResourceNotFound is MCP's code for a resource the server does not
// have before 2026-07-28 (resourceNotFoundIn); from 2026-07-28 it is
// -32602, the go-sdk's sdk.CodeResourceNotFound since v1.7.
const codeResourceNotFound = -32002

// noteMistakes is receiving middleware that logs the client errors the
// handlers answer with (invalid params, a resource that does not exist),
// once per client (opLog.clientMistake).
func (s *Server) noteMistakes(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		var je *jsonrpc.Error
		if err != nil && errors.As(err, &je) {
			if what, ok := clientErrorCodes[je.Code]; ok {
				s.ops.clientMistake(ctx, sessionClient(ctx, req), what, "method", method, "code", je.Code, "error", je.Message)
			}
		}
		return res, err
	}
}

// sessionClient names the client of req: its session, else the client the
// HTTP front put in ctx (withClient), else the one client of stdio.
func sessionClient(ctx context.Context, req sdk.Request) client {
	if ss, ok := req.GetSession().(*sdk.ServerSession); ok && ss.ID() != "" {
		return client{"session", ss.ID()}
	}
	if c, ok := ctx.Value(clientKey{}).(client); ok {
		return c
	}
	return stdioClient
}

// clientKey is the context key of the client of an HTTP request.
type clientKey struct{}

// withClient puts the client of r in its context, for the SDK's handlers
// (a session of the stateless handler has no id).
func withClient(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), clientKey{}, clientOf(r)))
}

// mistakeWriter passes an answer through and reports a 4xx status, the
// client's mistake, with the start of the message that explains it.
type mistakeWriter struct {
	http.ResponseWriter
	code   int
	body   []byte // the start of a 4xx answer
	logged bool   // the handler logged the mistake itself
}

// loggedMistake tells observeMistakes that the handler writing to w has
// logged the client's mistake itself.
func loggedMistake(w http.ResponseWriter) {
	if mw, ok := w.(*mistakeWriter); ok {
		mw.logged = true
	}
}

const mistakeBody = 200

func (w *mistakeWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *mistakeWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	if w.code >= 400 && w.code < 500 && len(w.body) < mistakeBody {
		w.body = append(w.body, b[:min(len(b), mistakeBody-len(w.body))]...)
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets the SDK stream events through the wrapper.
func (w *mistakeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *mistakeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observeMistakes serves r with next and logs a 4xx answer as the
// client's mistake (once per client).
func (s *Server) observeMistakes(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mw := &mistakeWriter{ResponseWriter: w}
		r = withClient(r)
		next.ServeHTTP(mw, r)
		switch {
		case mw.code == http.StatusMethodNotAllowed && (r.Method == http.MethodGet || r.Method == http.MethodDelete):
			// A GET for a stream, or a DELETE, where the server offers
			// none (a stateless request): the protocol lets a client try.
			s.log.Debug("request answered 405", "method", r.Method, "path", r.URL.Path, "answer", answerLine(mw.body))
		case mw.code >= 400 && mw.code < 500 && !mw.logged:
			s.ops.clientMistake(r.Context(), clientOf(r), "request refused", "method", r.Method, "path", r.URL.Path,
				"status", mw.code, "answer", answerLine(mw.body))
		}
	})
}

// answerLine is the first line of the start of an answer, as a log value.
func answerLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
