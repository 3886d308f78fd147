package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// hranaHTTP speaks Hrana over HTTP itself: one POST to /v2/pipeline
// carries several requests (execute, batch) and the stream's close, so a
// write, or the schema check with a one-shot's statement, is one request
// (libsql-client-go sends each statement in a request of its own and the
// stream's close in another). Every request runs under the caller's
// context (Store.writeCtx sets the deadline), and what goes through is
// counted in the store's meter.
type hranaHTTP struct {
	url   string // the pipeline endpoint
	token string
	meter *meter
	// route is what every request carries beside its body (hranaroute.go).
	route *hranaRoute
	// noCursor is set once the server answered that it has no cursor
	// endpoint (hranacursor.go): reads then go in pages at once.
	noCursor atomic.Bool
	// closing counts the cursors' stream closes on their way
	// (closeStream); Store.Close waits for them.
	closing sync.WaitGroup
	// bufs keeps the buffers answers are read into (hranaread.go).
	bufs answerBufs
}

// hranaClient sends the pipelines of every store: its connections are kept
// alive between requests.
var hranaClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}

// newHranaHTTP returns the client of the server at base (http(s):// or
// libsql://, which is HTTPS).
func newHranaHTTP(base, token string, m *meter, route *hranaRoute) (*hranaHTTP, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(u.Scheme, "libsql") {
		u.Scheme = "https"
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/v2/pipeline"
	return &hranaHTTP{url: u.String(), token: token, meter: m, route: route}, nil
}

// hranaReq is one request of a pipeline.
type hranaReq struct {
	Type string `json:"type"`
	// StreamID names the stream over WebSocket (wsBatcher.stream).
	StreamID *int        `json:"stream_id,omitempty"`
	Stmt     *hranaStmt  `json:"stmt,omitempty"`
	Batch    *hranaBatch `json:"batch,omitempty"`
}

// hranaBatch is a batch request's body.
type hranaBatch struct {
	Steps []hranaStep `json:"steps"`
	// ReplicationIndex: a replica answers once it has applied this
	// index (hranaroute.go).
	ReplicationIndex string `json:"replication_index,omitempty"`
}

func executeReq(st hranaStmt) hranaReq { return hranaReq{Type: "execute", Stmt: &st} }

func batchReq(steps []hranaStep) hranaReq {
	return hranaReq{Type: "batch", Batch: &hranaBatch{Steps: steps}}
}

var closeReq = hranaReq{Type: "close"}

// hranaBatchResult is a batch's answer: per step its result, or its error,
// or neither when its condition was false.
type hranaBatchResult struct {
	StepResults      []*hranaStmtResult `json:"step_results"`
	StepErrors       []*hranaError      `json:"step_errors"`
	ReplicationIndex replicationIndex   `json:"replication_index"`
}

// pipeResult is the answer to one request of a pipeline: Error when the
// server refused it, else Stmt (execute) or Batch (batch).
type pipeResult struct {
	Error *hranaError
	Stmt  *hranaStmtResult
	Batch *hranaBatchResult
}

// decodePipeline reads a pipeline's answer, which must hold n results;
// body is rewritten (extractRows, extractBlobs).
func decodePipeline(body []byte, n int) ([]pipeResult, error) {
	body, arrays := extractRows(body)
	body, blobs := extractBlobs(body)
	out, err := decodePipelineText(body, n)
	for i := range out {
		restoreRows(&out[i], arrays)
		restoreBlobs(&out[i], blobs)
	}
	return out, err
}

// decodePipelineText is decodePipeline without extractRows and
// extractBlobs: encoding/json alone.
func decodePipelineText(body []byte, n int) ([]pipeResult, error) {
	var resp struct {
		Results []struct {
			Type     string      `json:"type"`
			Error    *hranaError `json:"error"`
			Response jsonRef     `json:"response"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("the server's answer is not a Hrana pipeline answer: %w", err)
	}
	if len(resp.Results) != n {
		return nil, fmt.Errorf("the server answered %d of %d requests", len(resp.Results), n)
	}
	out := make([]pipeResult, n)
	for i, r := range resp.Results {
		switch r.Type {
		case "error":
			out[i].Error = r.Error
			if r.Error == nil {
				out[i].Error = &hranaError{Message: "an error without a message"}
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
func decodeResponse(raw []byte) (pipeResult, error) {
	var res struct {
		Type   string  `json:"type"`
		Result jsonRef `json:"result"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return pipeResult{}, err
	}
	var out pipeResult
	var err error
	switch res.Type {
	case "execute":
		out.Stmt = &hranaStmtResult{}
		err = json.Unmarshal(res.Result, out.Stmt)
	case "batch":
		out.Batch = &hranaBatchResult{}
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
// in one POST and returns their answers. An error wrapping errNotSent
// means nothing reached the server; a *serverError that the server
// answered the request as a whole with an error status (nothing ran);
// any other error leaves the outcome unknown.
func (h *hranaHTTP) pipeline(ctx context.Context, reqs []hranaReq) ([]pipeResult, error) {
	return h.pipelineOn(ctx, nil, reqs, h.meter)
}

// pipelineOn is pipeline on the stream a baton names (nil: a new one),
// counted in m (nil: not counted).
func (h *hranaHTTP) pipelineOn(ctx context.Context, baton *string, reqs []hranaReq, m *meter) ([]pipeResult, error) {
	return h.send(ctx, baton, reqs, m, false)
}

// send is pipelineOn; replayable marks a request that may be sent again
// (a read): net/http then retries it on a new connection when a
// kept-alive one was found closed.
func (h *hranaHTTP) send(ctx context.Context, baton *string, reqs []hranaReq, m *meter, replayable bool) ([]pipeResult, error) {
	body, err := json.Marshal(map[string]any{"baton": baton, "requests": reqs})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errNotSent, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errNotSent, err)
	}
	h.header(req)
	if replayable {
		// Present without a value: net/http's mark, not sent.
		req.Header["Idempotency-Key"] = nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", errNotSent, err)
	}
	m.sent(len(body))
	resp, err := hranaClient.Do(req)
	if err != nil {
		if !sentHTTP(ctx, err) {
			return nil, fmt.Errorf("%w: %w", errNotSent, err)
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
		return nil, &serverError{msg: statusText(resp.StatusCode, answer)}
	}
	if len(answer) > maxPipelineAnswer {
		return nil, fmt.Errorf("the server's answer is larger than %d MiB", maxPipelineAnswer>>20)
	}
	out, err := decodePipeline(answer, len(reqs))
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
func (h *hranaHTTP) header(req *http.Request) {
	req.Header.Set("Content-Type", "application/json")
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	h.route.header(req.Header)
}

// statusText is the error of an answer with an HTTP error status, in the
// words classify knows ("error code 401: ...").
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

// errStmt is the error of one request of a pipeline that the server
// refused (a statement's error): the server answered, so a write's outcome
// is known (not applied).
func errStmt(e *hranaError) error {
	if e == nil {
		return nil
	}
	return &serverError{msg: e.Message, code: e.Code}
}

// errNoAnswer is a pipeline's answer without the result it should hold.
var errNoAnswer = errors.New("the server's answer lacks a result")

// closeStream closes the server's stream of a cursor (its baton) in the
// background: sqld 0.24.32 keeps a cursor's stream open, and a database
// connection with it, until the stream expires (about 10 s), even once
// the cursor is read to its end, and answers 429 ("Timed out while opening
// database connection") to every request once about 128 are open: a
// value search stopping at its bound 100 times in a row met it. The
// caller does not wait for the close (a stream still busy with the
// cursor's statement is closed once it is done); Store.Close does. The
// meter does not count it.
func (h *hranaHTTP) closeStream(baton string, timeout time.Duration) {
	h.closing.Add(1)
	go func() {
		defer h.closing.Done()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		_, _ = h.pipelineOn(ctx, &baton, []hranaReq{closeReq}, nil)
	}()
}

// closeStreamWait bounds the wait of Store.Close for the stream closes
// still on their way.
const closeStreamWait = 2 * time.Second

// waitClosing waits for the stream closes on their way, at most
// closeStreamWait.
func (h *hranaHTTP) waitClosing() {
	done := make(chan struct{})
	go func() { h.closing.Wait(); close(done) }()
	t := time.NewTimer(closeStreamWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}
