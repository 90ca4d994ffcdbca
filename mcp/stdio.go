package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxStdioLine caps one line of the stdio transport: the go-sdk's
// default, 16 MiB.
const MaxStdioLine = sdk.DefaultMaxLineLength

// batchEra is the first protocol revision without JSON-RPC batches.
const batchEra = "2025-06-18"

// noBatches is the message of the -32600 every transport answers a batch
// with in protocol version, which has none (from batchEra on).
func noBatches(version string) string {
	if version == "" {
		version = batchEra + " and later"
	}
	return "invalid request: protocol " + version + " has no JSON-RPC batches"
}

// guardStdio returns the stdio transport over in and out with a guard on
// its input. The go-sdk's stdio connection decodes its input as one JSON
// stream: the first line that is not JSON, JSON nested deeper than
// encoding/json reads, a line that is JSON but no JSON-RPC 2.0 message
// (such as {} or 42), or a batch the session's protocol forbids ends the
// session, and the server with it, without a word to the client. MCP's
// stdio framing is one message per line, so the guard reads stdin a line
// at a time, hands the SDK every line it would accept, and answers any
// other itself, as JSON-RPC 2.0 says: -32700 for a line that is not JSON,
// -32600 for one that is no valid request, with the request's id when it
// has a usable one. A line over MaxStdioLine bytes is skipped without
// being held in memory, and answered with -32600. The server then goes on
// reading.
func guardStdio(in io.Reader, out io.Writer, log *opLog) sdk.Transport {
	return guardStdioFirst(in, out, log, nil)
}

// guardStdioFirst is guardStdio calling first with the client's name (see
// stdioGuard.first) before it hands on the client's first message.
func guardStdioFirst(in io.Reader, out io.Writer, log *opLog, first func(client string)) sdk.Transport {
	pr, pw := io.Pipe()
	p := &pending{ids: map[string]bool{}}
	life := &lifecycle{}
	w := &lineWriter{w: out, pending: p, life: life}
	g := &stdioGuard{out: w, to: pw, log: log, max: MaxStdioLine, pending: p, life: life, first: first}
	go func() { pw.CloseWithError(g.run(in)) }()
	return &sdk.IOTransport{Reader: pr, Writer: w, MaxLineLength: -1} // the guard caps lines
}

// lineWriter serialises the writes of the SDK and of the guard: each is
// one whole line, so replies never interleave. It marks the requests it
// writes a response to as answered, and the session as begun when it
// writes the result of its initialize.
type lineWriter struct {
	mu      sync.Mutex
	w       io.Writer
	pending *pending
	life    *lifecycle
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// The SDK's error responses without a code get the one every
	// transport gives them.
	if _, err := l.w.Write(withCodes(p)); err != nil {
		return 0, err
	}
	n := len(p)
	line := bytes.TrimSpace(p)
	msgs := []json.RawMessage{line}
	if len(line) > 0 && line[0] == '[' { // a batch's responses
		msgs = nil
		_ = json.Unmarshal(line, &msgs)
	}
	for _, raw := range msgs {
		if key, ok := responseKey(raw); ok {
			l.pending.doneKey(key)
			l.life.answered(key, raw)
			continue
		}
		if msg, derr := jsonrpc.DecodeMessage(raw); derr == nil {
			if resp, ok := msg.(*jsonrpc.Response); ok {
				l.pending.done(resp.ID)
				l.life.answered(idKey(resp.ID), raw)
			}
		}
	}
	return n, nil
}

// responsePrefix starts every response the SDK writes: it encodes the
// version, then the id, then the result or the error.
const responsePrefix = `{"jsonrpc":"2.0","id":`

// responseKey reads the pending key (idKey) of a response the SDK wrote,
// from its first bytes: decoding a whole reply (a skill's text, a page of
// skills/list) only to read its id cost a full JSON decode per reply. A
// message it cannot read so, or that is no response, is left to
// DecodeMessage (ok is false).
func responseKey(raw []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(raw, []byte(responsePrefix))
	if !ok || len(rest) == 0 {
		return "", false
	}
	var key string
	var end int
	switch {
	case rest[0] == '"':
		end = bytes.IndexByte(rest[1:], '"') + 2
		if end < 2 || bytes.IndexByte(rest[:end], '\\') >= 0 {
			return "", false // escapes: let the decoder read it
		}
		id, err := jsonrpc.MakeID(string(rest[1 : end-1]))
		if err != nil {
			return "", false
		}
		key = idKey(id)
	default:
		end = bytes.IndexByte(rest, ',')
		if end <= 0 {
			return "", false
		}
		n, err := strconv.ParseInt(string(rest[:end]), 10, 64)
		if err != nil {
			return "", false // not an integer: let the decoder read it
		}
		id, err := jsonrpc.MakeID(float64(n))
		if err != nil {
			return "", false
		}
		key = idKey(id)
	}
	after := rest[end:]
	if !bytes.HasPrefix(after, []byte(`,"result":`)) && !bytes.HasPrefix(after, []byte(`,"error":`)) {
		return "", false
	}
	return key, true
}

// pending is the set of client requests handed to the SDK and not yet
// answered: when stdin ends, the guard waits for their replies before it
// closes the SDK's input, which ends the session.
type pending struct {
	mu  sync.Mutex
	ids map[string]bool
}

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

func (p *pending) add(id jsonrpc.ID) {
	p.mu.Lock()
	p.ids[idKey(id)] = true
	p.mu.Unlock()
}

func (p *pending) done(id jsonrpc.ID) { p.doneKey(idKey(id)) }

func (p *pending) doneKey(key string) {
	p.mu.Lock()
	delete(p.ids, key)
	p.mu.Unlock()
}

func (p *pending) empty() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.ids) == 0
}

// lifecycle is where the stdio session stands. It begins when the result
// of an initialize goes out, not when the initialize goes in: one that
// fails (its params do not decode) leaves the client free to send a good
// one. A request of the stateless era, which carries what initialize
// would, begins it at once.
type lifecycle struct {
	mu    sync.Mutex
	begun bool
	// inits are the idKeys of the initialize requests handed on and not
	// yet answered (a client may send a second before the first's answer).
	inits map[string]bool
}

// state reports whether the session has begun, and whether an
// initialize is on its way.
func (l *lifecycle) state() (begun, initializing bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.begun, len(l.inits) > 0
}

// begin notes a request of the stateless era handed on.
func (l *lifecycle) begin() {
	l.mu.Lock()
	l.begun = true
	l.mu.Unlock()
}

// initializing notes the initialize with id handed on.
func (l *lifecycle) initializing(id jsonrpc.ID) {
	l.mu.Lock()
	if l.inits == nil {
		l.inits = map[string]bool{}
	}
	l.inits[idKey(id)] = true
	l.mu.Unlock()
}

// answered notes raw, the response to the request whose idKey is key:
// when it answers an initialize on its way, the session begins if it is
// a result.
func (l *lifecycle) answered(key string, raw []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.inits[key] {
		return
	}
	delete(l.inits, key)
	msg, err := jsonrpc.DecodeMessage(raw)
	if resp, ok := msg.(*jsonrpc.Response); err == nil && ok && resp.Error == nil {
		l.begun = true
	}
}

// eofWait is how long, after stdin ends, the guard waits for the replies
// to the requests it handed on.
const eofWait = 10 * time.Second

// Close does nothing: stdout stays open for the process.
func (l *lineWriter) Close() error { return nil }

// stdioGuard filters the lines of stdin (see guardStdio).
type stdioGuard struct {
	out *lineWriter
	to  io.Writer // the SDK's side
	log *opLog    // the server's: stdio has one client, whose mistakes it logs once
	max int
	// pending are the requests handed on and not yet answered.
	pending *pending
	// life is where the session stands (see outOfTurn).
	life *lifecycle
	// version is the protocol version of the last initialize request,
	// "" before one: it decides whether batches are allowed, as the SDK
	// decides.
	version string
	// first, when not nil, is called once, before the first message is
	// handed on (or at the end of input when none came), with the
	// clientInfo name of that message if it is initialize, else "".
	first func(client string)
}

// seen calls first, once, with the client name line gives.
func (g *stdioGuard) seen(line []byte) {
	if g.first == nil {
		return
	}
	f := g.first
	g.first = nil
	var msg struct {
		Method string `json:"method"`
		Params struct {
			ClientInfo struct {
				Name string `json:"name"`
			} `json:"clientInfo"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &msg) == nil && msg.Method == "initialize" {
		f(msg.Params.ClientInfo.Name)
		return
	}
	f("")
}

// run filters in until it ends; it returns nil at EOF.
func (g *stdioGuard) run(in io.Reader) error {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(br, g.max)
		if tooLong {
			g.refuse(jsonrpc.CodeInvalidRequest, nil, fmt.Sprintf("message longer than %d MiB: not read", g.max>>20))
		} else if len(bytes.TrimSpace(line)) > 0 {
			g.seen(line)
			if ok := g.check(line); ok {
				if _, werr := g.to.Write(append(line, '\n')); werr != nil {
					return werr // the SDK closed its side
				}
			}
		}
		if err == io.EOF {
			g.seen(nil)
			// A client may send requests and close stdin at once: answer
			// them before the session ends.
			for deadline := time.Now().Add(eofWait); !g.pending.empty() && time.Now().Before(deadline); {
				time.Sleep(5 * time.Millisecond)
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine reads one line without its newline. A line over max bytes is
// read to its end and dropped (tooLong), never held whole.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte{'\n'}), tooLong, err
	}
}

// check reports whether the SDK would accept line; when not, it answers
// the client itself.
func (g *stdioGuard) check(line []byte) bool {
	if !json.Valid(line) {
		g.refuse(jsonrpc.CodeParseError, nil, "parse error: the line is not JSON (or is nested too deeply)")
		return false
	}
	trimmed := bytes.TrimLeft(line, " \t\r")
	if trimmed[0] != '[' {
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			g.refuse(jsonrpc.CodeInvalidRequest, idOf(line), "invalid request: "+err.Error())
			return false
		}
		if why := invalidResponse(msg, line); why != "" {
			g.refuse(jsonrpc.CodeInvalidRequest, idOf(line), why)
			return false
		}
		if req, ok := msg.(*jsonrpc.Request); ok {
			begun, initializing := g.life.state()
			if why := outOfTurn(req, begun, initializing); why != "" {
				g.refuse(jsonrpc.CodeInvalidRequest, idOf(line), why)
				return false
			}
			g.handOn(req)
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "initialize" {
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(req.Params, &p)
			g.version = p.ProtocolVersion
		}
		return true
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(line, &batch); err != nil || len(batch) == 0 {
		g.refuse(jsonrpc.CodeInvalidRequest, nil, "invalid request: an empty batch")
		return false
	}
	if g.version >= batchEra {
		g.refuse(jsonrpc.CodeInvalidRequest, nil, noBatches(g.version))
		return false
	}
	// A batch refused whole begins nothing: its requests are judged in
	// turn against where the session would stand, and handed on together.
	var reqs []*jsonrpc.Request
	begun, initializing := g.life.state()
	for _, raw := range batch {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			g.refuse(jsonrpc.CodeInvalidRequest, idOf(raw), "invalid request in a batch: "+err.Error())
			return false
		}
		why := invalidResponse(msg, raw)
		req, ok := msg.(*jsonrpc.Request)
		if ok && why == "" {
			why = outOfTurn(req, begun, initializing)
		}
		if why != "" {
			g.refuse(jsonrpc.CodeInvalidRequest, idOf(raw), why+" (in a batch)")
			return false
		}
		if ok {
			reqs = append(reqs, req)
			initializing = initializing || (req.Method == "initialize" && req.IsCall())
			begun = begun || statelessRequest(req)
		}
	}
	for _, req := range reqs {
		g.handOn(req)
	}
	return true
}

// handOn notes req, about to be handed to the SDK: a call is pending, an
// initialize is on its way, a request of the stateless era begins the
// session.
func (g *stdioGuard) handOn(req *jsonrpc.Request) {
	if req.ID.IsValid() {
		g.pending.add(req.ID)
	}
	switch {
	case req.Method == "initialize" && req.IsCall():
		g.life.initializing(req.ID)
	case statelessRequest(req):
		g.life.begin()
	}
}

// statelessRequest reports whether req is of the stateless era: its _meta
// names the protocol version, so it needs no initialize.
func statelessRequest(req *jsonrpc.Request) bool {
	return (rpcMessage{Params: req.Params}).metaVersion() >= statelessEra
}

// outOfTurn returns why req comes out of turn, or "" for a request in
// turn: a request that needs the session before it began and with no
// initialize on its way (see beforeStart), or an initialize once it began
// (an initialize answered with a result, or a request of the stateless
// era, which carries what initialize would). While an initialize is on
// its way every request is handed on: the SDK handles initialize before
// it reads on, and answers what comes out of turn after a failed one
// with the code every transport gives it (codelessErrors).
func outOfTurn(req *jsonrpc.Request, begun, initializing bool) string {
	switch {
	case begun:
		if req.Method == "initialize" && req.IsCall() {
			return "invalid request: initialize was already received: a session is initialized once"
		}
		return ""
	case initializing:
		return ""
	}
	return beforeStart(req)
}

// beforeStart returns why req, a message that comes before the session
// began, is refused; "" when the SDK serves it then: a notification,
// initialize, the requests a client may send before it (ping,
// logging/setLevel, resources/subscribe and unsubscribe), server/discover
// (the SDK answers it), and any request of the stateless era.
func beforeStart(req *jsonrpc.Request) string {
	switch req.Method {
	case "initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "server/discover":
		return ""
	}
	if !req.IsCall() || statelessRequest(req) {
		return ""
	}
	return fmt.Sprintf("invalid request: %q before initialize: send initialize first (or, in protocol %s, "+
		"name the version in every request's _meta)", req.Method, statelessEra)
}

// invalidResponse returns why msg, decoded from raw, is not a response
// although the SDK decoded it as one (see invalidMessage); "" when it is
// a request or a real response.
func invalidResponse(msg jsonrpc.Message, raw []byte) string {
	if _, ok := msg.(*jsonrpc.Response); !ok {
		return ""
	}
	return invalidMessage(raw)
}

// refuse writes a JSON-RPC error response and logs it, as the client's
// mistake.
func (g *stdioGuard) refuse(code int64, id json.RawMessage, msg string) {
	g.log.clientMistake(context.Background(), stdioClient, "malformed message answered", "code", code, "error", msg)
	_, _ = g.out.Write(append(errorResponse(id, code, msg), '\n'))
}
