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

// Bounds of a streamStore: the streams of one session kept besides its
// GET stream, and the bytes of all events kept.
const (
	keptStreams = 8
	keptBytes   = 8 << 20
)

// streamStore is the sdk.EventStore of the stateful streamable HTTP
// handler. Of each session it keeps the events of its GET stream (the
// SDK's stream "", where the notifications and requests that answer no
// request of the client go) for as long as the session lives, and those
// of its last keepStreams POST streams; it keeps at most maxBytes of
// event data in all, trimming the oldest events of a GET stream and
// dropping the POST streams opened longest ago first. (The SDK's
// MemoryEventStore caps the data but keeps an entry for every stream a
// session ever opened until it ends.) A POST stream it no longer has is
// reported purged, which the SDK answers with 400 to a client that asks
// to resume it.
//
// A GET stream is never reported purged while its session lives, or the
// session could never listen again: a GET without Last-Event-ID gets the
// events no earlier GET was offered (those sent before the client first
// listened, or since its last GET ended: offered), a GET with
// Last-Event-ID the events after it that are still kept. The SDK numbers
// the events it replays from the Last-Event-ID, or from 0, and the next
// event after them, so After renumbers what the stream keeps to match.
type streamStore struct {
	keepStreams, maxBytes int

	mu       sync.Mutex
	bytes    int
	sessions map[string]*storedSession
	all      list.List // of *storedStream, the oldest first
}

var _ sdk.EventStore = (*streamStore)(nil)

type storedSession struct {
	get     *storedStream            // the GET stream, ""
	streams map[string]*storedStream // the POST streams
	order   list.List                // of the POST streams, the oldest first
}

// storedStream is the events of one stream: data[i] is the event of
// index first+i.
type storedStream struct {
	session, id string
	first       int
	data        [][]byte
	size        int
	all, own    *list.Element
	// offered is, for a GET stream, the index of the first event no GET
	// was offered.
	offered int
}

func (st *storedStream) end() int { return st.first + len(st.data) }

// trim forgets the stream's events before index i (at most up to its
// end), and reports the bytes freed.
func (st *storedStream) trim(i int) int {
	n, freed := min(max(i-st.first, 0), len(st.data)), 0
	for j := range n {
		freed += len(st.data[j])
		st.data[j] = nil
	}
	st.data, st.first, st.size = st.data[n:], st.first+n, st.size-freed
	return freed
}

func newStreamStore(keepStreams, maxBytes int) *streamStore {
	return &streamStore{keepStreams: keepStreams, maxBytes: maxBytes, sessions: map[string]*storedSession{}}
}

// Open starts keeping the events of a stream, dropping the session's
// oldest POST stream beyond keepStreams.
func (s *streamStore) Open(_ context.Context, sessionID, streamID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[sessionID]
	if ss == nil {
		ss = &storedSession{streams: map[string]*storedStream{}}
		s.sessions[sessionID] = ss
	}
	if s.stream(sessionID, streamID) != nil {
		return nil
	}
	st := &storedStream{session: sessionID, id: streamID}
	st.all = s.all.PushBack(st)
	if streamID == "" {
		ss.get = st
		return nil
	}
	st.own = ss.order.PushBack(st)
	ss.streams[streamID] = st
	for ss.order.Len() > s.keepStreams {
		s.drop(ss.order.Front().Value.(*storedStream))
	}
	return nil
}

// Append keeps the data of a stream's next event; the event of a stream
// already dropped is not kept. Over maxBytes, the oldest streams give
// way: a POST stream is dropped, a GET stream loses its oldest events,
// and the stream appended to keeps at least this event.
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
	for e := s.all.Front(); e != nil && s.bytes > s.maxBytes; {
		old := e.Value.(*storedStream)
		e = e.Next()
		switch {
		case old == st:
			s.bytes -= old.trim(old.end() - 1)
		case old.id == "":
			for s.bytes > s.maxBytes && len(old.data) > 0 {
				s.bytes -= old.trim(old.first + 1)
			}
		default:
			s.drop(old)
		}
	}
	return nil
}

// After yields the data of the stream's events after index, or
// sdk.ErrEventsPurged when some of them are no longer kept; for a GET
// stream, see streamStore.
func (s *streamStore) After(_ context.Context, sessionID, streamID string, index int) iter.Seq2[[]byte, error] {
	s.mu.Lock()
	var events [][]byte
	var err error
	switch st := s.stream(sessionID, streamID); {
	case st == nil:
		err = fmt.Errorf("stream %q of session %q: %w", streamID, sessionID, sdk.ErrEventsPurged)
	case streamID == "":
		events = s.replay(st, index)
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

// replay returns the events a GET of st gets, resuming after index (-1:
// a GET without Last-Event-ID), and renumbers what st keeps as the SDK
// numbers the events it replays: from index+1. s.mu is held.
func (s *streamStore) replay(st *storedStream, index int) [][]byte {
	from := index + 1
	if index < 0 {
		from = st.offered
	}
	s.bytes -= st.trim(from)
	events := append([][]byte(nil), st.data...)
	st.first = index + 1
	st.offered = st.first
	return events
}

// offered records that the GET stream of session sessionID ended: a GET
// without Last-Event-ID gets only the events after those it holds now.
func (s *streamStore) offered(sessionID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.stream(sessionID, ""); st != nil {
		st.offered = st.end()
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
		if ss.get != nil {
			s.all.Remove(ss.get.all)
			s.bytes -= ss.get.size
		}
		delete(s.sessions, sessionID)
	}
	return nil
}

// stream returns a kept stream, or nil. s.mu is held.
func (s *streamStore) stream(sessionID, streamID string) *storedStream {
	ss := s.sessions[sessionID]
	switch {
	case ss == nil:
		return nil
	case streamID == "":
		return ss.get
	}
	return ss.streams[streamID]
}

// drop forgets a POST stream, and its session with its last stream when
// it has no GET stream. s.mu is held.
func (s *streamStore) drop(st *storedStream) {
	ss := s.sessions[st.session]
	s.all.Remove(st.all)
	ss.order.Remove(st.own)
	delete(ss.streams, st.id)
	if len(ss.streams) == 0 && ss.get == nil {
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
