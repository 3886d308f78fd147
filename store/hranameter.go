package store

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
)

// Cost is what a store's requests cost since Open, as counted on the way
// (Store.Cost): the requests and their bytes each way, and the rows the
// server says it read and wrote (Hrana's rows_read and rows_written,
// which Turso bills by; for a streamed read, whose answer on sqld 0.24.32
// does not say, the rows it returned).
type Cost struct {
	Requests      int64
	BytesSent     int64
	BytesReceived int64
	RowsRead      int64
	RowsWritten   int64
}

// Cost returns what the store's requests cost so far: everything kvdeck's
// own Hrana clients send (HTTP pipelines, the WebSocket reads and write
// batches) and
// libsql-client-go's HTTP requests made for this store. Not counted: the
// stream closes sent in the background (libsql-client-go's when it drops
// a connection, kvdeck's after a streamed read), and libsql-client-go's
// WebSocket statements (its WebSocket library takes no hook; reads go
// through kvdeck's own clients, hranaread.go). A file store costs no
// requests.
func (s *Store) Cost() Cost { return s.meter.cost() }

// meter counts a store's requests.
type meter struct {
	requests, out, in, read, written atomic.Int64
}

func (m *meter) cost() Cost {
	return Cost{Requests: m.requests.Load(), BytesSent: m.out.Load(), BytesReceived: m.in.Load(), RowsRead: m.read.Load(), RowsWritten: m.written.Load()}
}

// sent counts a request of n bytes.
func (m *meter) sent(n int) {
	if m == nil {
		return
	}
	m.requests.Add(1)
	m.out.Add(int64(n))
}

// received counts n bytes of answer.
func (m *meter) received(n int) {
	if m != nil {
		m.in.Add(int64(n))
	}
}

// rows adds the server's row counts of one pipeline answer.
func (m *meter) rows(r pipeResult) {
	if m == nil {
		return
	}
	m.stmtRows(r.Stmt)
	if r.Batch != nil {
		for _, st := range r.Batch.StepResults {
			m.stmtRows(st)
		}
	}
}

func (m *meter) stmtRows(r *hranaStmtResult) {
	if r != nil {
		m.read.Add(r.RowsRead)
		m.written.Add(r.RowsWritten)
	}
}

// meterKey carries a store's meter in the context of libsql-client-go's
// requests, which go through http.DefaultClient: meteredTransport counts
// them for that store.
type meterKey struct{}

func withMeter(ctx context.Context, m *meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// meteredTransport counts the requests of http.DefaultClient whose context
// carries a meter (libsql-client-go's, made for a store); others pass
// through untouched.
type meteredTransport struct{ base http.RoundTripper }

func init() {
	// libsql-client-go sends with http.DefaultClient and offers no option
	// for another client: counting its requests needs its transport.
	base := http.DefaultClient.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	http.DefaultClient.Transport = meteredTransport{base: base}
}

// RoundTrip implements http.RoundTripper.
func (t meteredTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	m, _ := req.Context().Value(meterKey{}).(*meter)
	if m == nil || req.Header.Get("Upgrade") != "" {
		// A WebSocket's upgrade (its connection is counted by message)
		// keeps its body, which must stay an io.ReadWriteCloser.
		return t.base.RoundTrip(req)
	}
	m.sent(int(max(req.ContentLength, 0)))
	resp, err := t.base.RoundTrip(req)
	if err == nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, m: m, read: rowScan{name: `"rows_read":`}, written: rowScan{name: `"rows_written":`}}
	}
	return resp, err
}

// countingBody counts an answer's bytes and the server's row counts in it
// as it is read (rowScan), without decoding it.
type countingBody struct {
	io.ReadCloser
	m             *meter
	read, written rowScan
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.m.in.Add(int64(n))
	b.m.read.Add(b.read.scan(p[:n]))
	b.m.written.Add(b.written.scan(p[:n]))
	return n, err
}

// rowScan finds the numbers after a JSON member name ("rows_read":) in a
// stream of JSON text given in pieces, and sums them. The name with its
// quotes cannot occur inside a JSON string (a quote there is escaped), so
// every match is a member.
type rowScan struct {
	name  string // e.g. `"rows_read":`
	at    int    // bytes of name matched so far; len(name) then digits
	num   int64
	inNum bool
}

// scan consumes p and returns the sum of the numbers completed in it.
func (r *rowScan) scan(p []byte) int64 {
	var sum int64
	for _, c := range p {
		if r.at == len(r.name) {
			switch {
			case c >= '0' && c <= '9':
				if r.num < 1<<50 {
					r.num = r.num*10 + int64(c-'0')
				}
				r.inNum = true
				continue
			case (c == ' ' || c == '\t' || c == '\n' || c == '\r') && !r.inNum:
				continue
			}
			sum += r.num
			r.at, r.num, r.inNum = 0, 0, false
		}
		switch c {
		case r.name[r.at]:
			r.at++
		case r.name[0]:
			r.at = 1
		default:
			r.at = 0
		}
	}
	return sum
}
