package adaptertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
)

// server is a target's server for one row, with its log and its hook
// calls captured.
type server struct {
	h  http.Handler
	mu sync.Mutex
	// logs are the adapter's log lines.
	logs bytes.Buffer
	// rejects are the rejections OnReject was called with.
	rejects []seenRejection
	// written is what the handler wrote of a HEAD request's answer,
	// which no client gets.
	written bytes.Buffer
}

type seenRejection struct{ reason, location string }

func (s *server) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.Write(p)
}

func (s *server) onReject(_ *http.Request, rj *middleware.Rejection) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejects = append(s.rejects, seenRejection{rj.Reason.String(), rj.Location.String()})
}

// ServeHTTP serves r, keeping what the handler writes of a HEAD answer.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodHead {
		w = &headWriter{ResponseWriter: w, s: s}
	}
	s.h.ServeHTTP(w, r)
}

type headWriter struct {
	http.ResponseWriter
	s *server
}

func (w *headWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	w.s.written.Write(p)
	w.s.mu.Unlock()
	return w.ResponseWriter.Write(p)
}

func (w *headWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// newServer builds tg's server for the row.
func newServer(t testing.TB, tg Target, rw row) *server {
	s := &server{}
	logger := zerolog.New(s)
	s.h = tg.Serve(t, Server{Rules: rw.policies(tg), Logger: &logger, OnReject: s.onReject, Routes: routesOf(tg)})
	return s
}

// result is what one target made of one row.
type result struct {
	status  int
	body    string
	ctype   string
	nosniff string
	// reads is what the handler answered it read; readsErr why the answer
	// is no Reads document.
	reads    *Reads
	readsErr error
	lines    []map[string]any
	rejects  []seenRejection
}

// result is what s made of the request it answered with status, body
// and header.
func (s *server) result(method string, status int, body string, h http.Header) (*result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := &result{status: status, body: body, ctype: h.Get("Content-Type"),
		nosniff: h.Get("X-Content-Type-Options"), rejects: s.rejects}
	if status == http.StatusOK {
		doc := body
		if method == http.MethodHead {
			doc = s.written.String()
		}
		res.reads = &Reads{}
		if err := res.reads.UnmarshalJSON([]byte(doc)); err != nil {
			res.reads, res.readsErr = nil, fmt.Errorf("the answer is not one Reads document: %v: %q", err, doc)
		}
	}
	for line := range strings.SplitSeq(s.logs.String(), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			return nil, fmt.Errorf("log line is not JSON: %v: %q", err, line)
		}
		res.lines = append(res.lines, m)
	}
	return res, nil
}
