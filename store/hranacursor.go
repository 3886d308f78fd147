package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"kvdeck/codec"
)

// A dump over HTTP is one streamed response where the server offers
// Hrana 3's cursor endpoint (/v3/cursor): the rows come as lines of JSON
// while the server reads them, with no page limit (sqld refuses a
// pipeline answer over 10 MB; a cursor streamed 53 MB in one request on
// sqld 0.24.32). A server without it (404) is read in pages (Scan). The
// request has no fixed deadline, since a store's dump takes as long as it
// takes: it fails when the server sends nothing for the request timeout.
// The cursor's stream is not closed by a request of its own: the server
// drops it when it expires.

// errNoCursor: the server has no cursor endpoint.
var errNoCursor = errors.New("the server offers no Hrana 3 cursor")

// cursorEntry is one line of a cursor's answer (a row's step is the one
// begun last: dumpCursor fills it in).
type cursorEntry struct {
	Type  string       `json:"type"`
	Step  int          `json:"step"`
	Row   []hranaValue `json:"row"`
	Error *hranaError  `json:"error"`
}

// dumpCursor is DumpAll in one cursor request; errNoCursor when the
// server has none (nothing was read).
func (s *Store) dumpCursor(ctx context.Context, prefix codec.Key, fn func(Entry) error) error {
	lo, hi, err := bounds(ListOptions{Prefix: prefix, IncludeExpired: true, Unbounded: len(prefix) == 0})
	if err != nil {
		return err
	}
	rng, args := rangeWhere(lo, hi)
	steps := []stmt{{sql: "SELECT " + s.entrySQL() + " FROM kv WHERE " + rng + " ORDER BY k", args: args}}
	if len(prefix) == 0 {
		keyless := stmt{sql: "SELECT " + s.entrySQL() + ", rowid FROM kv WHERE k IS NULL ORDER BY rowid"}
		steps = append([]stmt{keyless}, steps...)
	}
	hsteps := make([]hranaStep, len(steps))
	for i, st := range steps {
		if hsteps[i].Stmt, err = hranaStatement(st); err != nil {
			return err
		}
	}
	s.statements.Add(int64(len(steps)))
	s.roundTrips.Add(1)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(s.reqTimeout, func() { cancel(errRequestTimeout) })
	defer idle.Stop()
	body, err := s.http.cursor(ctx, hsteps)
	if err != nil {
		return s.classify(s.cursorErr(ctx, err))
	}
	defer body.Close()
	lines := bufio.NewReaderSize(body, 64<<10)
	var head struct {
		Baton *string `json:"baton"`
	}
	line, err := readLine(lines, nil)
	if err == nil {
		err = json.Unmarshal(line, &head)
	}
	if err != nil {
		return s.classify(s.cursorErr(ctx, err))
	}
	keylessStep := len(steps) - 2 // -1 when there is none
	step := -1                    // a row belongs to the step begun last
	for {
		idle.Reset(s.reqTimeout)
		line, err = readLine(lines, line[:0])
		eof := errors.Is(err, io.EOF)
		if eof && len(bytes.TrimSpace(line)) == 0 {
			return nil
		} else if err != nil && !eof {
			return s.classify(s.cursorErr(ctx, err))
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e cursorEntry
		if row, ok := decodeRowLine(line); ok {
			e = cursorEntry{Type: "row", Row: row}
		} else if err := json.Unmarshal(line, &e); err != nil {
			return s.classify(s.cursorErr(ctx, fmt.Errorf("the server's cursor sent a line that is not JSON: %w", err)))
		}
		if e.Type == "step_begin" {
			step = e.Step
		}
		if e.Type == "row" {
			e.Step = step
		}
		if err := s.cursorLine(e, keylessStep, fn); err != nil {
			return err
		}
	}
}

// readLine appends the next line of r (without a limit: a row is as long
// as its value) to buf.
func readLine(r *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		part, err := r.ReadSlice('\n')
		buf = append(buf, part...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}

// cursorLine handles one line of a dump's cursor: a row goes to fn; an
// error ends the dump, except that a kv without rowid has no keyless
// rows to read.
func (s *Store) cursorLine(e cursorEntry, keylessStep int, fn func(Entry) error) error {
	switch e.Type {
	case "row":
		rows := &batchRows{rows: [][]hranaValue{e.Row}, at: 0}
		var rowid int64
		var extra []any
		if e.Step == keylessStep {
			extra = append(extra, &rowid)
		}
		ent, err := scanEntry(rows, extra...)
		if err != nil {
			return s.classify(err)
		}
		s.rowsRead.Add(1)
		return fn(ent)
	case "step_error", "error":
		if e.Type == "step_error" && e.Step == keylessStep && e.Error != nil && strings.Contains(e.Error.Message, "no such column: rowid") {
			return nil
		}
		return s.classify(errStmt(orUnknown(e.Error)))
	}
	return nil
}

func orUnknown(e *hranaError) *hranaError {
	if e == nil {
		return &hranaError{Message: "the server ended the dump with an error"}
	}
	return e
}

// cursorErr names a cursor that ended because the server went quiet.
func (s *Store) cursorErr(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), errRequestTimeout) {
		return fmt.Errorf("%w: %s sent nothing for %s (is the server overloaded or the link down?): %s", ErrUnreachable, s.display, s.reqTimeout, redact(err.Error()))
	}
	return err
}

// cursor opens a cursor over steps (no conditions: each runs whatever the
// one before did) and returns its answer's body, lines of JSON; the
// meter counts its bytes as they are read.
func (h *hranaHTTP) cursor(ctx context.Context, steps []hranaStep) (io.ReadCloser, error) {
	body, err := json.Marshal(map[string]any{"baton": nil, "batch": map[string]any{"steps": steps}})
	if err != nil {
		return nil, err
	}
	url := strings.TrimSuffix(h.url, "/v2/pipeline") + "/v3/cursor"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	h.meter.sent(len(body))
	resp, err := hranaClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNotFound {
		resp.Body.Close()
		return nil, errNoCursor
	}
	if resp.StatusCode != http.StatusOK {
		answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		h.meter.received(len(answer))
		return nil, &serverError{statusText(resp.StatusCode, answer)}
	}
	return &meteredBody{ReadCloser: resp.Body, in: &h.meter.in}, nil
}

// meteredBody counts the bytes read from an answer.
type meteredBody struct {
	io.ReadCloser
	in *atomic.Int64
}

func (b *meteredBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.in.Add(int64(n))
	return n, err
}
