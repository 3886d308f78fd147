package hrana

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// HTTP speaks Hrana over HTTP itself: one POST to /v2/pipeline
// carries several requests (execute, batch) and the stream's close, so a
// write, or the schema check with a one-shot's statement, is one request
// (libsql-client-go sends each statement in a request of its own and the
// stream's close in another). Every request runs under the caller's
// context (the caller sets the deadline), and what goes through is
// counted in its Meter.
type HTTP struct {
	url   string // the pipeline endpoint
	token string
	meter *Meter
	// route is what every request carries beside its body (route.go).
	route *Route
	// noCursor is set once the server answered that it has no cursor
	// endpoint (cursor.go): it is not asked again.
	noCursor atomic.Bool
	// closing counts the cursors' stream closes on their way
	// (closeStream); Client.Close waits for them.
	closing sync.WaitGroup
	// bufs keeps the buffers answers are read into (bufs.go).
	bufs answerBufs
}

// httpClient sends the pipelines of every store: its connections are kept
// alive between requests.
var httpClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}

// NewHTTP returns the client of the server at base (http(s):// or
// libsql://, which is HTTPS).
func NewHTTP(base, token string, m *Meter, route *Route) (*HTTP, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(u.Scheme, "libsql") {
		u.Scheme = "https"
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/v2/pipeline"
	return &HTTP{url: u.String(), token: token, meter: m, route: route}, nil
}

// Req is one request of a pipeline.
type Req struct {
	Type string `json:"type"`
	// StreamID names the stream over WebSocket (WS.stream).
	StreamID *int   `json:"stream_id,omitempty"`
	Stmt     *Stmt  `json:"stmt,omitempty"`
	Batch    *Batch `json:"batch,omitempty"`
}

// Batch is a batch request's body.
type Batch struct {
	Steps []Step `json:"steps"`
	// ReplicationIndex: a replica answers once it has applied this
	// index (route.go).
	ReplicationIndex string `json:"replication_index,omitempty"`
}

func ExecuteReq(st Stmt) Req { return Req{Type: "execute", Stmt: &st} }

func BatchReq(steps []Step) Req {
	return Req{Type: "batch", Batch: &Batch{Steps: steps}}
}

var CloseReq = Req{Type: "close"}

// BatchResult is a batch's answer: per step its result, or its error,
// or neither when its condition was false.
type BatchResult struct {
	StepResults      []*StmtResult    `json:"step_results"`
	StepErrors       []*Error         `json:"step_errors"`
	ReplicationIndex replicationIndex `json:"replication_index"`
}

// Result is the answer to one request of a pipeline: Error when the
// server refused it, else Stmt (execute) or Batch (batch).
type Result struct {
	Error *Error
	Stmt  *StmtResult
	Batch *BatchResult
}

// DecodePipeline reads a pipeline's answer, which must hold n results;
// body is rewritten (extractRows, extractBlobs).
func DecodePipeline(body []byte, n int) ([]Result, error) {
	body, arrays := extractRows(body)
	body, blobs := extractBlobs(body)
	out, err := decodePipelineText(body, n)
	for i := range out {
		restoreRows(&out[i], arrays)
		restoreBlobs(&out[i], blobs)
	}
	return out, err
}

// decodePipelineText is DecodePipeline without extractRows and
// extractBlobs: encoding/json alone.
func decodePipelineText(body []byte, n int) ([]Result, error) {
	var resp struct {
		Results []struct {
			Type     string  `json:"type"`
			Error    *Error  `json:"error"`
			Response jsonRef `json:"response"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("the server's answer is not a Hrana pipeline answer: %w", err)
	}
	if len(resp.Results) != n {
		return nil, fmt.Errorf("the server answered %d of %d requests", len(resp.Results), n)
	}
	out := make([]Result, n)
	for i, r := range resp.Results {
		switch r.Type {
		case "error":
			out[i].Error = r.Error
			if r.Error == nil {
				out[i].Error = &Error{Message: "an error without a message"}
			}
		case "ok":
			var err error
			if out[i], err = decodeResponse(r.Response); err != nil {
				return nil, fmt.Errorf("answer %d: %w", i, err)
			}
		default:
			return nil, fmt.Errorf("answer %d has type %q", i, r.Type)
		}
	}
	return out, nil
}

// decodeResponse reads the response to one request, over HTTP or
// WebSocket: {"type": "execute"|"batch"|..., "result": ...}.
func decodeResponse(raw []byte) (Result, error) {
	var res struct {
		Type   string  `json:"type"`
		Result jsonRef `json:"result"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return Result{}, err
	}
	var out Result
	var err error
	switch res.Type {
	case "execute":
		out.Stmt = &StmtResult{}
		err = json.Unmarshal(res.Result, out.Stmt)
	case "batch":
		out.Batch = &BatchResult{}
		err = json.Unmarshal(res.Result, out.Batch)
	case "close", "open_stream", "close_stream":
	default:
		err = fmt.Errorf("unexpected response type %q", res.Type)
	}
	return out, err
}

// maxPipelineAnswer bounds an answer read into memory (sqld refuses
// answers over 10 MB itself).
const maxPipelineAnswer = 64 << 20

// pipeline sends reqs (the last a close: the stream ends with the request)
// in one POST and returns their answers. An error wrapping ErrNotSent
// means nothing reached the server; a *ServerError that the server
// answered the request as a whole with an error status (nothing ran);
// any other error leaves the outcome unknown.
func (h *HTTP) pipeline(ctx context.Context, reqs []Req) ([]Result, error) {
	return h.pipelineOn(ctx, nil, reqs, h.meter)
}

// pipelineOn is pipeline on the stream a baton names (nil: a new one),
// counted in m (nil: not counted).
func (h *HTTP) pipelineOn(ctx context.Context, baton *string, reqs []Req, m *Meter) ([]Result, error) {
	return h.send(ctx, baton, reqs, m, false)
}

// send is pipelineOn; replayable marks a request that may be sent again
// (a read): net/http then retries it on a new connection when a
// kept-alive one was found closed.
func (h *HTTP) send(ctx context.Context, baton *string, reqs []Req, m *Meter, replayable bool) ([]Result, error) {
	body, err := json.Marshal(map[string]any{"baton": baton, "requests": reqs})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotSent, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotSent, err)
	}
	h.header(req)
	if replayable {
		// Present without a value: net/http's mark, not sent.
		req.Header["Idempotency-Key"] = nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotSent, err)
	}
	m.sent(len(body))
	resp, err := httpClient.Do(req)
	if err != nil {
		if !sentHTTP(ctx, err) {
			return nil, fmt.Errorf("%w: %w", ErrNotSent, err)
		}
		return nil, err
	}
	defer resp.Body.Close()
	buf := h.bufs.get()
	defer h.bufs.put(buf)
	answer, err := readAnswer(io.LimitReader(resp.Body, maxPipelineAnswer+1), *buf, resp.ContentLength)
	*buf = answer
	m.received(len(answer))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &ServerError{msg: statusText(resp.StatusCode, answer)}
	}
	if len(answer) > maxPipelineAnswer {
		return nil, fmt.Errorf("the server's answer is larger than %d MiB", maxPipelineAnswer>>20)
	}
	out, err := DecodePipeline(answer, len(reqs))
	if err != nil {
		return nil, err
	}
	for _, r := range out {
		m.rows(r)
		h.route.note(r)
	}
	return out, nil
}

// header sets what every request to the server carries: the content
// type, the token, and the route's headers (the namespace).
func (h *HTTP) header(req *http.Request) {
	req.Header.Set("Content-Type", "application/json")
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	h.route.header(req.Header)
}

// statusText is the error of an answer with an HTTP error status, in the
// words the store's error mapping knows ("error code 401: ...").
func statusText(code int, body []byte) string {
	var e struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil && (e.Error != "" || e.Message != "") {
		msg = e.Error + e.Message
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return fmt.Sprintf("error code %d: %s", code, msg)
}

// StmtError is the error of one request of a pipeline that the server
// refused (a statement's error): the server answered, so a write's outcome
// is known (not applied).
func StmtError(e *Error) error {
	if e == nil {
		return nil
	}
	return &ServerError{msg: e.Message, code: e.Code}
}

// ErrNoAnswer is a pipeline's answer without the result it should hold.
var ErrNoAnswer = errors.New("the server's answer lacks a result")

// closeStream closes the server's stream of a cursor (its baton) in the
// background: sqld 0.24.32 keeps a cursor's stream open, and a database
// connection with it, until the stream expires (about 10 s), even once
// the cursor is read to its end, and answers 429 ("Timed out while opening
// database connection") to every request once about 128 are open: a
// value search stopping at its bound 100 times in a row met it. The
// caller does not wait for the close (a stream still busy with the
// cursor's statement is closed once it is done); Client.Close does. The
// Meter does not count it.
func (h *HTTP) closeStream(baton string, timeout time.Duration) {
	h.closing.Add(1)
	go func() {
		defer h.closing.Done()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		_, _ = h.pipelineOn(ctx, &baton, []Req{CloseReq}, nil)
	}()
}

// closeStreamWait bounds the wait of Client.Close for the stream closes
// still on their way.
const closeStreamWait = 2 * time.Second

// waitClosing waits for the stream closes on their way, at most
// closeStreamWait.
func (h *HTTP) waitClosing() {
	done := make(chan struct{})
	go func() { h.closing.Wait(); close(done) }()
	t := time.NewTimer(closeStreamWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// sentHTTP reports whether a failed Hrana pipeline request may have
// reached the server: everything but a failed dial or an answer from the
// server (an HTTP status, a statement error) counts as possibly sent.
func sentHTTP(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return false
	}
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET)
}

// CloseIdle drops the idle connections of the HTTP client every store
// shares (tests count the goroutines a read leaves behind).
func CloseIdle() { httpClient.CloseIdleConnections() }
