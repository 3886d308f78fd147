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
)

// A whole-range read over HTTP (Scan, and DumpAll with its NULL keys) is
// one streamed response where the server offers Hrana 3's cursor
// endpoint (/v3/cursor): the rows come as lines of JSON while the server
// reads them, with no page limit (sqld refuses a pipeline answer over
// 10 MB; a cursor streamed 53 MB in one request on sqld 0.24.32). A
// server without it (404) is read in pages (scanPages), and is not asked
// again. The cursor's stream is closed afterwards by a request of its own
// (closeStream), sent in the background: sqld keeps it open otherwise.
// The request has no fixed deadline, since a store's dump takes
// as long as it takes: it fails when the server sends nothing for the
// request timeout while kvdeck waits for it (idleReader); the time the
// caller spends on the rows does not count (a `list | less` left alone
// for a minute: sqld 0.24.32 kept a cursor paused for 70 s and then sent
// the rest).

// errNoCursor: the server has no cursor endpoint.
var errNoCursor = errors.New("the server offers no Hrana 3 cursor")

// errBrokenOff: the server's answer ended before its last statement did
// (the connection dropped, or the server stopped or could not send a row).
var errBrokenOff = errors.New("the answer broke off")

// cursorEntry is one line of a cursor's answer.
type cursorEntry struct {
	Type  string       `json:"type"`
	Step  int          `json:"step"`
	Row   []hranaValue `json:"row"`
	Error *hranaError  `json:"error"`
	// RowsRead is a step_end's rows read by the server, where it says
	// (sqld 0.24.32 does not).
	RowsRead *int64 `json:"rows_read"`
}

// cursorRead is one streamed read: statements the server runs one after
// the other in one cursor request, and which of them reads the NULL keys
// (keyless, -1 for none): its rows carry a rowid, and on a kv without
// rowid it fails, which means there are none.
type cursorRead struct {
	steps   []stmt
	keyless int
}

// readCursor streams the rows of rd's statements to fn from one cursor
// request; errNoCursor when the server has none (nothing was read). fn
// may stop it by returning an error: the answer's body is closed (the
// connection with it) and the error returned.
func (s *Store) readCursor(ctx context.Context, rd cursorRead, fn func(Entry) error) (err error) {
	if s.server.reads.http.noCursor.Load() {
		return errNoCursor
	}
	if err := s.ready(ctx); err != nil {
		return err
	}
	hsteps := make([]hranaStep, len(rd.steps))
	for i, st := range rd.steps {
		if hsteps[i].Stmt, err = hranaStatement(st); err != nil {
			return err
		}
	}
	s.statements.Add(int64(len(rd.steps)))
	s.roundTrips.Add(1)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(s.reqTimeout, func() { cancel(errRequestTimeout) })
	defer idle.Stop()
	body, err := s.server.reads.http.cursor(ctx, hsteps)
	idle.Stop()
	if err != nil {
		return s.classify(s.cursorErr(ctx, err))
	}
	defer body.Close()
	d := newCursorDecoder(&idleReader{r: body, t: idle, d: s.reqTimeout}, rd)
	defer func() {
		s.server.meter.read.Add(d.serverRows())
		if d.baton != "" {
			s.server.reads.http.closeStream(d.baton, min(s.reqTimeout, 5*time.Second))
		}
	}()
	for {
		e, err := d.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return s.streamErr(ctx, d, err)
		}
		s.rowsRead.Add(1)
		if err := fn(e); err != nil {
			return err
		}
	}
}

// idleReader reads an answer under the request timeout: t, which ends
// the request, runs only while a read waits for the server, not while
// the caller handles what was read.
type idleReader struct {
	r io.Reader
	t *time.Timer
	d time.Duration
}

func (r *idleReader) Read(p []byte) (int, error) {
	r.t.Reset(r.d)
	n, err := r.r.Read(p)
	r.t.Stop()
	return n, err
}

// cursorDecoder reads a cursor's answer: a head line, then per step its
// step_begin, rows and step_end (or step_error), or an error for the
// whole batch; lines of other types (replication_index) are skipped.
type cursorDecoder struct {
	r       *bufio.Reader
	rd      cursorRead
	line    []byte
	head    bool   // the head line was read
	baton   string // the server's stream of the cursor, to close
	step    int    // the step begun last; -1 before the first
	open    bool   // that step has not ended
	last    bool   // the last step ended: the answer is complete
	rows    int64  // rows handed over
	said    int64  // rows read by the server, as its step_ends say
	saidAny bool
	readErr bool // reading the answer failed (not its content)
}

func newCursorDecoder(r io.Reader, rd cursorRead) *cursorDecoder {
	return &cursorDecoder{r: bufio.NewReaderSize(r, 64<<10), rd: rd, step: -1}
}

// serverRows is what the server read for the rows handed over: its own
// count where its step_ends give one, else the rows it sent.
func (d *cursorDecoder) serverRows() int64 {
	if d.saidAny {
		return d.said
	}
	return d.rows
}

// next returns the next row; io.EOF once the answer is complete,
// errBrokenOff when it ended before, a *serverError when the server
// reported one.
func (d *cursorDecoder) next() (Entry, error) {
	for {
		var err error
		d.line, err = readLine(d.r, d.line[:0])
		eof := errors.Is(err, io.EOF)
		if err != nil && !eof {
			d.readErr = true
			return Entry{}, err
		}
		blank := len(bytes.TrimSpace(d.line)) == 0
		switch {
		case eof && blank && d.last:
			return Entry{}, io.EOF
		case eof && blank:
			return Entry{}, errBrokenOff
		case blank:
			continue
		case !d.head:
			var head struct {
				Baton *string `json:"baton"`
			}
			if json.Unmarshal(d.line, &head) != nil {
				return Entry{}, fmt.Errorf("the server's answer is not a Hrana cursor: %.80q", d.line)
			}
			d.head = true
			if head.Baton != nil {
				d.baton = *head.Baton
			}
			continue
		}
		e, ok, err := d.entry()
		if err != nil || ok {
			return e, err
		}
	}
}

// entry handles the line read: ok is true when it was a row, which e is.
func (d *cursorDecoder) entry() (e Entry, ok bool, err error) {
	if d.open && d.step != d.rd.keyless {
		if e, fast := decodeEntryLine(d.line); fast {
			d.rows++
			return e, true, nil
		}
	}
	var c cursorEntry
	if row, fast := decodeRowLine(d.line); fast {
		c = cursorEntry{Type: "row", Row: row}
	} else if err := json.Unmarshal(d.line, &c); err != nil {
		return Entry{}, false, fmt.Errorf("the server's cursor sent a line that is not JSON: %w", err)
	}
	switch c.Type {
	case "step_begin":
		if c.Step <= d.step || c.Step >= len(d.rd.steps) || d.open {
			return Entry{}, false, fmt.Errorf("the server's cursor began step %d after step %d", c.Step, d.step)
		}
		d.step, d.open = c.Step, true
	case "step_end", "step_error":
		if !d.open {
			return Entry{}, false, fmt.Errorf("the server's cursor ended a step it had not begun (%s)", c.Type)
		}
		d.open, d.last = false, d.step == len(d.rd.steps)-1
		if c.RowsRead != nil {
			d.said, d.saidAny = d.said+*c.RowsRead, true
		}
		if c.Type == "step_error" && !(d.step == d.rd.keyless && c.Error != nil && strings.Contains(c.Error.Message, "no such column: rowid")) {
			return Entry{}, false, errStmt(orUnknown(c.Error))
		}
	case "error":
		return Entry{}, false, errStmt(orUnknown(c.Error))
	case "row":
		if !d.open {
			return Entry{}, false, errors.New("the server's cursor sent a row outside a step")
		}
		rows := &batchRows{rows: [][]hranaValue{c.Row}, at: 0}
		var rowid int64
		var extra []any
		if d.step == d.rd.keyless {
			extra = append(extra, &rowid)
		}
		if e, err = scanEntry(rows, extra...); err != nil {
			return Entry{}, false, err
		}
		d.rows++
		return e, true, nil
	}
	return Entry{}, false, nil
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

func orUnknown(e *hranaError) *hranaError {
	if e == nil {
		return &hranaError{Message: "the server ended the read with an error"}
	}
	return e
}

// streamErr is the error of a cursor's answer that did not end well: the
// server's own (a statement's), the request timeout, the caller's end
// (ctx), or an answer that broke off.
func (s *Store) streamErr(ctx context.Context, d *cursorDecoder, err error) error {
	var se *serverError
	switch {
	case errors.As(err, &se), errors.Is(context.Cause(ctx), errRequestTimeout):
		return s.classify(s.cursorErr(ctx, err))
	case context.Cause(ctx) != nil:
		return context.Cause(ctx)
	case errors.Is(err, errBrokenOff), errors.Is(err, io.ErrUnexpectedEOF), d.readErr:
		return s.classify(fmt.Errorf("%w: %s broke off its answer after %d rows (the connection dropped, or the server stopped or could not send a row): %s",
			ErrUnreachable, s.display, d.rows, redact(err.Error())))
	}
	return s.classify(err)
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
	stamped, _ := h.route.stamp(batchReq(steps))
	batch := stamped.Batch
	body, err := json.Marshal(map[string]any{"baton": nil, "batch": batch})
	if err != nil {
		return nil, err
	}
	url := strings.TrimSuffix(h.url, "/v2/pipeline") + "/v3/cursor"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	h.header(req)
	h.meter.sent(len(body))
	resp, err := hranaClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNotFound {
		resp.Body.Close()
		h.noCursor.Store(true)
		return nil, errNoCursor
	}
	if resp.StatusCode != http.StatusOK {
		answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		h.meter.received(len(answer))
		return nil, &serverError{msg: statusText(resp.StatusCode, answer)}
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
