package mcp

// Resumable POST streams of streamable HTTP sessions (protocol 2025-11-25,
// SEP-1699): the answer to a POST goes out as an SSE stream whose first
// event carries an id and no data (the priming event) and a retry field,
// so that a client whose stream breaks before the answer can reconnect
// with GET and Last-Event-ID, after the delay the server gives, and get
// the rest. The go-sdk writes the priming event, and replays a stream,
// only with an sdk.EventStore (streamStore); it writes no retry field,
// which retryWriter adds. Protocol 2026-07-28 has no resumption: the
// stateless handler has neither.

import (
	"container/list"
	"context"
	"fmt"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// sseRetry is the reconnection delay each SSE stream of a session states.
const sseRetry = time.Second

// Bounds of a streamStore: the streams of one session kept, and the bytes
// of all events kept.
const (
	keptStreams = 8
	keptBytes   = 8 << 20
)

// streamStore is the sdk.EventStore of the stateful streamable HTTP
// handler. It keeps the events of the last keepStreams streams of each
// session, and at most maxBytes of event data in all, dropping the
// streams opened longest ago first (the SDK's MemoryEventStore caps the
// data but keeps an entry for every stream a session ever opened until it
// ends). A stream it no longer has is reported purged, which the SDK
// answers with 400 to a client that asks to resume it.
type streamStore struct {
	keepStreams, maxBytes int

	mu       sync.Mutex
	bytes    int
	sessions map[string]*storedSession
	all      list.List // of *storedStream, the oldest first
}

var _ sdk.EventStore = (*streamStore)(nil)

type storedSession struct {
	streams map[string]*storedStream
	order   list.List // of *storedStream, the oldest first
}

// storedStream is the events of one stream: data[i] is the event of
// index first+i.
type storedStream struct {
	session, id string
	first       int
	data        [][]byte
	size        int
	all, own    *list.Element
}

func newStreamStore(keepStreams, maxBytes int) *streamStore {
	return &streamStore{keepStreams: keepStreams, maxBytes: maxBytes, sessions: map[string]*storedSession{}}
}

// Open starts keeping the events of a stream, dropping the session's
// oldest stream beyond keepStreams.
func (s *streamStore) Open(_ context.Context, sessionID, streamID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[sessionID]
	if ss == nil {
		ss = &storedSession{streams: map[string]*storedStream{}}
		s.sessions[sessionID] = ss
	}
	if ss.streams[streamID] != nil {
		return nil
	}
	st := &storedStream{session: sessionID, id: streamID}
	st.all, st.own = s.all.PushBack(st), ss.order.PushBack(st)
	ss.streams[streamID] = st
	for ss.order.Len() > s.keepStreams {
		s.drop(ss.order.Front().Value.(*storedStream))
	}
	return nil
}

// Append keeps the data of a stream's next event; the event of a stream
// already dropped is not kept.
func (s *streamStore) Append(_ context.Context, sessionID, streamID string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stream(sessionID, streamID)
	if st == nil {
		return nil
	}
	st.data = append(st.data, data)
	st.size += len(data)
	s.bytes += len(data)
	for s.bytes > s.maxBytes {
		if old := s.all.Front().Value.(*storedStream); old != st {
			s.drop(old)
			continue
		}
		// The stream alone is over the cap: keep its newest event.
		if len(st.data) == 1 {
			break
		}
		n := len(st.data[0])
		st.data[0] = nil
		st.data, st.first, st.size, s.bytes = st.data[1:], st.first+1, st.size-n, s.bytes-n
	}
	return nil
}

// After yields the data of the stream's events after index, or
// sdk.ErrEventsPurged when some of them are no longer kept.
func (s *streamStore) After(_ context.Context, sessionID, streamID string, index int) iter.Seq2[[]byte, error] {
	s.mu.Lock()
	var events [][]byte
	var err error
	switch st := s.stream(sessionID, streamID); {
	case st == nil:
		err = fmt.Errorf("stream %q of session %q: %w", streamID, sessionID, sdk.ErrEventsPurged)
	case index+1 < st.first:
		err = fmt.Errorf("stream %q of session %q after event %d: %w", streamID, sessionID, index, sdk.ErrEventsPurged)
	case index+1-st.first < len(st.data):
		events = append(events, st.data[index+1-st.first:]...)
	}
	s.mu.Unlock()
	return func(yield func([]byte, error) bool) {
		if err != nil {
			yield(nil, err)
			return
		}
		for _, d := range events {
			if !yield(d, nil) {
				return
			}
		}
	}
}

// SessionClosed drops the session's streams.
func (s *streamStore) SessionClosed(_ context.Context, sessionID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss := s.sessions[sessionID]; ss != nil {
		for ss.order.Len() > 0 {
			s.drop(ss.order.Front().Value.(*storedStream))
		}
	}
	return nil
}

// stream returns a kept stream, or nil. s.mu is held.
func (s *streamStore) stream(sessionID, streamID string) *storedStream {
	if ss := s.sessions[sessionID]; ss != nil {
		return ss.streams[streamID]
	}
	return nil
}

// drop forgets a stream, and its session with its last stream. s.mu is
// held.
func (s *streamStore) drop(st *storedStream) {
	ss := s.sessions[st.session]
	s.all.Remove(st.all)
	ss.order.Remove(st.own)
	delete(ss.streams, st.id)
	if len(ss.streams) == 0 {
		delete(s.sessions, st.session)
	}
	s.bytes -= st.size
}

// retryWriter passes an answer through; when it is an SSE stream, its
// first event (the priming event, where the SDK sends one) gains a retry
// field: how long a client whose stream breaks waits before it
// reconnects.
type retryWriter struct {
	http.ResponseWriter
	started bool
}

func (w *retryWriter) Write(b []byte) (int, error) {
	if !w.started {
		w.started = true
		if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
			// The SDK writes each event in one Write: this one starts
			// the stream's first event.
			field := "retry: " + strconv.FormatInt(sseRetry.Milliseconds(), 10) + "\n"
			if _, err := w.ResponseWriter.Write([]byte(field)); err != nil {
				return 0, err
			}
		}
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets the SDK stream events through the wrapper.
func (w *retryWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *retryWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
