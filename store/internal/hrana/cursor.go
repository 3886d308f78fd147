package hrana

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
)

// A streamed read over HTTP is one response where the server offers
// Hrana 3's cursor endpoint (/v3/cursor): the rows come as lines of JSON
// while the server reads them, with no page limit (sqld refuses a
// pipeline answer over 10 MB; a cursor streamed 53 MB in one request on
// sqld 0.24.32). A server without it (404) is not asked again
// (NoCursor). The cursor's stream is closed afterwards by a request of
// its own (CloseStream), sent in the background: sqld keeps it open
// otherwise.

// ErrNoCursor: the server has no cursor endpoint.
var ErrNoCursor = errors.New("the server offers no Hrana 3 cursor")

// errBrokenOff: the server's answer ended before its last statement did
// (the connection dropped, or the server stopped or could not send a row).
var errBrokenOff = errors.New("the answer broke off")

// cursorEntry is one line of a cursor's answer.
type cursorEntry struct {
	Type  string  `json:"type"`
	Step  int     `json:"step"`
	Row   []Value `json:"row"`
	Error *Error  `json:"error"`
	// RowsRead is a step_end's rows read by the server, where it says
	// (sqld 0.24.32 does not).
	RowsRead *int64 `json:"rows_read"`
}

// Decoder reads a cursor's answer: a head line, then per step its
// step_begin, rows and step_end (or step_error), or an error for the
// whole batch; lines of other types (replication_index) are skipped.
type Decoder struct {
	r     *bufio.Reader
	steps int // the batch's steps
	// noRowid is the step whose failure for want of a rowid column (a kv
	// without rowid) means it has no rows (-1: none).
	noRowid int
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

// NewDecoder reads the answer r of a cursor over steps steps; noRowid is
// the step whose failure for want of a rowid column counts as no rows
// (-1: none).
func NewDecoder(r io.Reader, steps, noRowid int) *Decoder {
	return &Decoder{r: bufio.NewReaderSize(r, 64<<10), steps: steps, noRowid: noRowid, step: -1}
}

// ServerRows is what the server read for the rows handed over: its own
// count where its step_ends give one, else the rows it sent.
func (d *Decoder) ServerRows() int64 {
	if d.saidAny {
		return d.said
	}
	return d.rows
}

// Rows counts the rows handed over.
func (d *Decoder) Rows() int64 { return d.rows }

// Baton names the server's stream of the cursor, to close (CloseStream);
// "" when the answer named none.
func (d *Decoder) Baton() string { return d.baton }

// BrokenOff reports whether err, an error of Next, means that the answer
// ended early: it broke off, or reading it failed (not its content).
func (d *Decoder) BrokenOff(err error) bool {
	return errors.Is(err, errBrokenOff) || errors.Is(err, io.ErrUnexpectedEOF) || d.readErr
}

// Next returns the next row and the step it belongs to; io.EOF once the
// answer is complete, an error that BrokenOff reports when it ended
// before, a *ServerError when the server reported one.
func (d *Decoder) Next() (row []Value, step int, err error) {
	for {
		d.line, err = readLine(d.r, d.line[:0])
		eof := errors.Is(err, io.EOF)
		if err != nil && !eof {
			d.readErr = true
			return nil, 0, err
		}
		blank := len(bytes.TrimSpace(d.line)) == 0
		switch {
		case eof && blank && d.last:
			return nil, 0, io.EOF
		case eof && blank:
			return nil, 0, errBrokenOff
		case blank:
			continue
		case !d.head:
			var head struct {
				Baton *string `json:"baton"`
			}
			if json.Unmarshal(d.line, &head) != nil {
				return nil, 0, fmt.Errorf("the server's answer is not a Hrana cursor: %.80q", d.line)
			}
			d.head = true
			if head.Baton != nil {
				d.baton = *head.Baton
			}
			continue
		}
		row, ok, err := d.entry()
		if err != nil || ok {
			return row, d.step, err
		}
	}
}

// entry handles the line read: ok is true when it was a row.
func (d *Decoder) entry() (row []Value, ok bool, err error) {
	var c cursorEntry
	if row, fast := decodeRowLine(d.line); fast {
		c = cursorEntry{Type: "row", Row: row}
	} else if err := json.Unmarshal(d.line, &c); err != nil {
		return nil, false, fmt.Errorf("the server's cursor sent a line that is not JSON: %w", err)
	}
	switch c.Type {
	case "step_begin":
		if c.Step <= d.step || c.Step >= d.steps || d.open {
			return nil, false, fmt.Errorf("the server's cursor began step %d after step %d", c.Step, d.step)
		}
		d.step, d.open = c.Step, true
	case "step_end", "step_error":
		if !d.open {
			return nil, false, fmt.Errorf("the server's cursor ended a step it had not begun (%s)", c.Type)
		}
		d.open, d.last = false, d.step == d.steps-1
		if c.RowsRead != nil {
			d.said, d.saidAny = d.said+*c.RowsRead, true
		}
		if c.Type == "step_error" && !(d.step == d.noRowid && c.Error != nil && strings.Contains(c.Error.Message, "no such column: rowid")) {
			return nil, false, StmtError(orUnknown(c.Error))
		}
	case "error":
		return nil, false, StmtError(orUnknown(c.Error))
	case "row":
		if !d.open {
			return nil, false, errors.New("the server's cursor sent a row outside a step")
		}
		d.rows++
		return c.Row, true, nil
	}
	return nil, false, nil
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

func orUnknown(e *Error) *Error {
	if e == nil {
		return &Error{Message: "the server ended the read with an error"}
	}
	return e
}

// Cursor opens a cursor over steps (no conditions: each runs whatever the
// one before did) and returns its answer's body, lines of JSON; the
// Meter counts its bytes as they are read.
func (h *HTTP) Cursor(ctx context.Context, steps []Step) (io.ReadCloser, error) {
	stamped, _ := h.route.stamp(BatchReq(steps))
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
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNotFound {
		resp.Body.Close()
		h.noCursor.Store(true)
		return nil, ErrNoCursor
	}
	if resp.StatusCode != http.StatusOK {
		answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		h.meter.received(len(answer))
		return nil, &ServerError{msg: statusText(resp.StatusCode, answer)}
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
