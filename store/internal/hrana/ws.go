package hrana

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// WS sends write transactions over WebSocket as one Hrana "batch"
// request each: BEGIN IMMEDIATE, the statements, COMMIT, each step
// conditioned on the one before, and a ROLLBACK when the COMMIT did not
// run. The server runs the whole batch before it answers, so no
// transaction is ever left open between round trips: a client that is
// interrupted, or whose answer is lost, cannot leave the server's write
// lock held (libsql-client-go's WebSocket driver can only send one
// statement per request, so a transaction through it spans several, and a
// lost COMMIT left sqld refusing writes from every client).
//
// Connections are pooled: a batch takes an idle one or dials, and gives it
// back when the answer came; one that failed, timed out or was cancelled
// is closed (an unanswered request is never waited for past ctx).
type WS struct {
	url   string
	token string
	meter *Meter
	// route is what every connection carries (route.go): the
	// namespace on its upgrade; answers' replication indexes are noted.
	route *Route

	mu       sync.Mutex
	idle     []*wsConn
	readIdle []*wsConn // reading connections, each with its stream (wsread.go)
	closed   bool
	// bufs keeps the buffers messages are read into (bufs.go).
	bufs answerBufs
}

// wsConn is one pooled WebSocket connection.
type wsConn struct {
	conn     *websocket.Conn
	lastUsed time.Time
	nextID   int
	stream   int // a reading connection's stream (wsread.go); 0: none
}

// wsWriteGates holds one gate per server URL: the write batches of every
// store of this process to one server go one at a time.
//
// sqld (0.24) queues writers in a lock manager of its own
// (libsql-server's connection_manager.rs). A queued writer that is
// answered "busy" (an automatic checkpoint holds the slot, or a
// truncating checkpoint re-synced the queue) leaves its entry in the
// queue. When that stale entry comes up after its connection has closed,
// the slot goes to a connection that no longer exists, every writer waits
// on it, spinning, and the server refuses writes from every client until
// it is restarted; when the connection still exists the writers wait
// until it writes again or closes. Seen with `kvdeck race --workers 12`
// from three processes over ws:// (a gdb trace of the spinning writers
// and the server's debug log of the stale entry), within 2 to 5 rounds.
// No client can repair that state, but it arises only while writers wait
// in the server's queue: with one write per process in flight, at most
// as many wait as there are processes. Ten rounds of 36 racing writers
// (TestRaceOverWebSocketLarge) met such a stall (a request unanswered for
// over 20 s) in 9 rounds without the gate, and in none with it; some
// stalls without it lasted until sqld was restarted. (The rarer
// "unanswered" commits with the gate, about one round in ten, were the
// client's own: see wsConn.read. With both, 30 rounds of 36 racing
// writers over ws:// knew every outcome.) Reads
// stay on long-lived streams (wsread.go, as libsql-client-go's did): reads
// each on a stream of their own (tried) need a new server connection per
// read, and stalled along with the writes.
var wsWriteGates sync.Map // URL -> chan struct{}

// lockWrite waits for this process's turn to write to the server; the
// returned func ends the turn. It fails only when ctx ends first (nothing
// was sent).
func (w *WS) LockWrite(ctx context.Context) (func(), error) {
	g, _ := wsWriteGates.LoadOrStore(w.url, make(chan struct{}, 1))
	gate := g.(chan struct{})
	select {
	case gate <- struct{}{}:
		return func() { <-gate }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// wsIdleRedial is how long an idle connection is trusted: past it a write
// dials afresh, so that a connection the server or a middlebox dropped
// meanwhile does not turn a commit into an unknown outcome.
const wsIdleRedial = 10 * time.Second

// wsMaxIdle bounds the idle connections kept.
const wsMaxIdle = 4

// take returns a connection of pool (w.idle, or w.readIdle) used within
// fresh, closing the older ones it meets, or nil.
func (w *WS) take(pool *[]*wsConn, fresh time.Duration) *wsConn {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(*pool) > 0 {
		c := (*pool)[len(*pool)-1]
		*pool = (*pool)[:len(*pool)-1]
		if time.Since(c.lastUsed) <= fresh {
			return c
		}
		_ = c.conn.CloseNow()
	}
	return nil
}

// give puts a healthy connection back into pool (at most wsMaxIdle).
func (w *WS) give(pool *[]*wsConn, c *wsConn) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || len(*pool) >= wsMaxIdle {
		_ = c.conn.CloseNow()
		return
	}
	*pool = append(*pool, c)
}

// Value is a Hrana value on the wire.
type Value struct {
	Type   string  `json:"type"`
	Value  any     `json:"value,omitempty"`
	Base64 *string `json:"base64,omitempty"`
	// blob is a result's blob already decoded (extractBlobs), in place
	// of Base64; nothing else refers to it.
	blob []byte
}

type Stmt struct {
	SQL      string  `json:"sql"`
	Args     []Value `json:"args,omitempty"`
	WantRows bool    `json:"want_rows"`
	// ReplicationIndex: a replica answers once it has applied this
	// index (route.go).
	ReplicationIndex string `json:"replication_index,omitempty"`
}

type Cond struct {
	Type string `json:"type"`
	Step *int   `json:"step,omitempty"`
	Cond *Cond  `json:"cond,omitempty"`
}

type Step struct {
	Condition *Cond `json:"condition,omitempty"`
	Stmt      Stmt  `json:"stmt"`
}

type Error struct {
	Message string `json:"message"`
	Code    string `json:"code"`
}

type StmtResult struct {
	Rows             [][]Value        `json:"rows"`
	RowsRead         int64            `json:"rows_read"`
	RowsWritten      int64            `json:"rows_written"`
	ReplicationIndex replicationIndex `json:"replication_index"`
}

type message struct {
	Type      string          `json:"type"`
	RequestID int             `json:"request_id"`
	Error     *Error          `json:"error"`
	Response  json.RawMessage `json:"response"`
}

// ServerError is an error the server answered with: the batch was rolled
// back (or never began), so its outcome is known.
type ServerError struct {
	msg  string
	code string // the Hrana error's code, where it has one (RESPONSE_TOO_LARGE)
}

func (e *ServerError) Error() string { return e.msg }

// Code is the Hrana error's code, "" where it has none.
func (e *ServerError) Code() string { return e.code }

// Answered reports whether err is an error the server answered with
// (the batch was rolled back, or never began), not a transport failure.
func Answered(err error) bool {
	var se *ServerError
	return errors.As(err, &se)
}

// HasCode reports whether err is the server's error with the Hrana code.
func HasCode(err error, code string) bool {
	var se *ServerError
	return errors.As(err, &se) && se.code == code
}

// ErrNotSent marks a failure before the request left this process: the
// transaction certainly did not run.
var ErrNotSent = errors.New("request not sent")

// stream sends reqs in one request: on a stream of their own, opened and
// closed around them in the same burst of messages (no extra round trip),
// and returns their answers. Closing the stream discards its server-side
// connection, so nothing the requests did (not even a transaction the
// server failed to end) outlives them. An error wrapping ErrNotSent means
// nothing reached the server; any other transport error leaves the
// outcome unknown.
func (w *WS) Stream(ctx context.Context, reqs []Req) ([]Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotSent, err)
	}
	c := w.take(&w.idle, wsIdleRedial)
	if c == nil {
		var err error
		if c, err = w.dial(ctx); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotSent, err)
		}
	}
	msgs, ids := streamMessages(c.nextID+1, reqs)
	c.nextID = ids[len(ids)-1]
	if err := c.write(ctx, w.meter, msgs); err != nil {
		return nil, err
	}
	// The answers to the requests and to the stream's close, in whatever
	// order they come (the open's answer is skipped: a stream that did not
	// open fails the requests).
	answers, err := c.read(ctx, w.meter, &w.bufs, ids...)
	if err != nil {
		_ = c.conn.CloseNow()
		return nil, err
	}
	c.lastUsed = time.Now()
	w.give(&w.idle, c)
	out := make([]Result, len(reqs))
	for i, a := range answers[:len(reqs)] {
		out[i] = a.result()
		w.meter.rows(out[i])
		w.route.note(out[i])
	}
	return out, nil
}

// streamMessages are the messages of reqs on the stream (and request id)
// stream: its open, the requests and its close; ids are the request ids
// whose answers count (the requests' and the close's).
func streamMessages(stream int, reqs []Req) (msgs []map[string]any, ids []int) {
	msgs = []map[string]any{{"type": "request", "request_id": stream, "request": map[string]any{"type": "open_stream", "stream_id": stream}}}
	for i, r := range reqs {
		r.StreamID = &stream
		ids = append(ids, stream+1+i)
		msgs = append(msgs, map[string]any{"type": "request", "request_id": stream + 1 + i, "request": r})
	}
	closeID := stream + 1 + len(reqs)
	ids = append(ids, closeID)
	msgs = append(msgs, map[string]any{"type": "request", "request_id": closeID, "request": map[string]any{"type": "close_stream", "stream_id": stream}})
	return msgs, ids
}

// Transaction makes stmts one transaction of Hrana batch steps: BEGIN
// IMMEDIATE, each statement on the success of the one before, COMMIT on
// the last, and ROLLBACK unless the COMMIT ran. commit is the COMMIT's
// step.
func Transaction(stmts []Stmt) (steps []Step, commit int) {
	steps = make([]Step, 0, len(stmts)+3)
	steps = append(steps, Step{Stmt: Stmt{SQL: "BEGIN IMMEDIATE"}})
	for _, st := range stmts {
		steps = append(steps, Step{Condition: okStep(len(steps) - 1), Stmt: st})
	}
	commit = len(steps)
	steps = append(steps, Step{Condition: okStep(commit - 1), Stmt: Stmt{SQL: "COMMIT"}})
	steps = append(steps, Step{Condition: &Cond{Type: "not", Cond: okStep(commit)}, Stmt: Stmt{SQL: "ROLLBACK"}})
	return steps, commit
}

// Committed reads the result of a Transaction of n statements whose
// COMMIT is step commit: each statement's rows (nil for a statement
// without a result), or the server's error when the COMMIT did not run.
func Committed(res *BatchResult, commit, n int) ([][][]Value, error) {
	committed := commit < len(res.StepResults) && res.StepResults[commit] != nil
	if !committed {
		for _, e := range res.StepErrors {
			if e != nil {
				return nil, &ServerError{msg: e.Message, code: e.Code}
			}
		}
		return nil, &ServerError{msg: "the server did not run the COMMIT"}
	}
	// Step 0 is the BEGIN: statement i is step i+1.
	rows := make([][][]Value, n)
	for i := range n {
		if i+1 < len(res.StepResults) && res.StepResults[i+1] != nil {
			rows[i] = res.StepResults[i+1].Rows
			if rows[i] == nil {
				rows[i] = [][]Value{}
			}
		}
	}
	return rows, nil
}

func okStep(i int) *Cond { return &Cond{Type: "ok", Step: &i} }

func (m message) errText() string {
	if m.Error != nil {
		return m.Error.Message
	}
	return "an unexpected " + strconv.Quote(m.Type) + " message"
}

// dial opens a connection and says hello (one round trip after the
// upgrade).
func (w *WS) dial(ctx context.Context) (*wsConn, error) {
	h := http.Header{}
	w.route.header(h)
	conn, _, err := websocket.Dial(ctx, w.url, &websocket.DialOptions{Subprotocols: []string{"hrana2", "hrana1"}, HTTPHeader: h})
	if err != nil {
		return nil, fmt.Errorf("failed to WebSocket dial: %w", err)
	}
	conn.SetReadLimit(16 << 20)
	b, _ := json.Marshal(map[string]any{"type": "hello", "jwt": w.token})
	w.meter.sent(len(b)) // the handshake's round trip
	if err := conn.Write(ctx, websocket.MessageText, b); err != nil {
		_ = conn.CloseNow()
		return nil, err
	}
	var hello message
	_, b, err = conn.Read(ctx)
	w.meter.received(len(b))
	if err == nil {
		err = json.Unmarshal(b, &hello)
	}
	if err != nil {
		_ = conn.CloseNow()
		return nil, err
	}
	if hello.Type != "hello_ok" {
		_ = conn.CloseNow()
		return nil, fmt.Errorf("handshake refused (AuthError?): %s", hello.errText())
	}
	return &wsConn{conn: conn, lastUsed: time.Now()}, nil
}

// write sends msgs, one round trip counted in m; a connection that
// failed is closed. A failed write may still have put bytes on the wire:
// only a context done before the first write proves nothing was sent.
func (c *wsConn) write(ctx context.Context, m *Meter, msgs []map[string]any) error {
	m.sent(0)
	for _, msg := range msgs {
		b, err := json.Marshal(msg)
		if err == nil {
			m.out.Add(int64(len(b)))
			err = c.conn.Write(ctx, websocket.MessageText, b)
		}
		if err != nil {
			_ = c.conn.CloseNow()
			return err
		}
	}
	return nil
}

// read returns the answers to the requests ids, in the order of ids,
// whatever the order they come in: Hrana answers the requests of a
// connection as they complete, so a stream's close can be answered before
// the batch sent ahead of it on that stream (waiting for the batch's
// answer first, and skipping what came before it, lost the close's answer
// and turned an applied commit into an unknown outcome after the request
// timeout: TestWebSocketAnswersInAnyOrder). Other messages are skipped.
// Each message is read into a pooled buffer and its response decoded
// there (bufs.go).
func (c *wsConn) read(ctx context.Context, mt *Meter, bufs *answerBufs, ids ...int) ([]wsAnswer, error) {
	out := make([]wsAnswer, len(ids))
	seen := make([]bool, len(ids))
	buf := bufs.get()
	defer bufs.put(buf)
	for left := len(ids); left > 0; {
		var msg struct {
			Type      string  `json:"type"`
			RequestID int     `json:"request_id"`
			Error     *Error  `json:"error"`
			Response  jsonRef `json:"response"`
		}
		b, err := c.message(ctx, mt, buf)
		var arrays [][][]Value
		var blobs [][]byte
		if err == nil {
			b, arrays = extractRows(b)
			b, blobs = extractBlobs(b)
			err = json.Unmarshal(b, &msg)
		}
		if err != nil {
			return out, err
		}
		if msg.Type != "response_ok" && msg.Type != "response_error" {
			continue
		}
		for i, id := range ids {
			if msg.RequestID != id || seen[i] {
				continue
			}
			out[i], seen[i] = wsAnswer{typ: msg.Type, err: msg.Error, has: msg.Response != nil}, true
			left--
			if msg.Type == "response_ok" && msg.Response != nil {
				if out[i].res, err = decodeResponse(msg.Response); err != nil {
					return out, fmt.Errorf("the server's answer is not Hrana's: %w", err)
				}
				restoreRows(&out[i].res, arrays)
				restoreBlobs(&out[i].res, blobs)
			}
		}
	}
	return out, nil
}

// message reads the connection's next message into buf.
func (c *wsConn) message(ctx context.Context, mt *Meter, buf *[]byte) ([]byte, error) {
	_, r, err := c.conn.Reader(ctx)
	if err != nil {
		return nil, err
	}
	*buf, err = readAnswer(r, *buf, -1)
	mt.received(len(*buf))
	return *buf, err
}

// wsAnswer is the answer to one request: its message's type, the
// server's error, and the response decoded (has: the message held one).
type wsAnswer struct {
	typ string
	err *Error
	has bool
	res Result
}

// result is the answer as a pipeline's: the response, or the error.
func (a wsAnswer) result() Result {
	if a.typ == "response_ok" && a.has {
		return a.res
	}
	if a.err != nil {
		return Result{Error: a.err}
	}
	return Result{Error: &Error{Message: message{Type: a.typ}.errText()}}
}

// Close closes the idle connections; later batches close theirs on return.
func (w *WS) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	for _, c := range append(w.idle, w.readIdle...) {
		_ = c.conn.CloseNow()
	}
	w.idle, w.readIdle = nil, nil
}

// ValueOf encodes a statement argument: nil, int64, int, float64,
// string or []byte.
func ValueOf(a any) (Value, error) {
	switch x := a.(type) {
	case nil:
		return Value{Type: "null"}, nil
	case int64:
		return Value{Type: "integer", Value: strconv.FormatInt(x, 10)}, nil
	case int:
		return Value{Type: "integer", Value: strconv.Itoa(x)}, nil
	case float64:
		return Value{Type: "float", Value: x}, nil
	case string:
		return Value{Type: "text", Value: x}, nil
	case []byte:
		b := base64.RawStdEncoding.EncodeToString(x)
		return Value{Type: "blob", Base64: &b}, nil
	default:
		return Value{}, fmt.Errorf("cannot send a %T to the server", a)
	}
}

// Native decodes a result value as the drivers do: nil, int64,
// float64, string or []byte.
func (v Value) Native() (any, error) {
	switch v.Type {
	case "null":
		return nil, nil
	case "integer":
		s, _ := v.Value.(string)
		return strconv.ParseInt(s, 10, 64)
	case "float":
		f, ok := v.Value.(float64)
		if !ok {
			return nil, fmt.Errorf("float value %v", v.Value)
		}
		return f, nil
	case "text":
		s, _ := v.Value.(string)
		return s, nil
	case "blob":
		if v.blob != nil {
			return v.blob, nil
		}
		if v.Base64 == nil {
			return []byte{}, nil
		}
		return base64.RawStdEncoding.DecodeString(trimPad(*v.Base64))
	default:
		return nil, fmt.Errorf("unknown value type %q", v.Type)
	}
}

func trimPad(s string) string {
	for len(s) > 0 && s[len(s)-1] == '=' {
		s = s[:len(s)-1]
	}
	return s
}
