package store

import "sync/atomic"

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
// own Hrana clients send (HTTP pipelines and cursors, the WebSocket reads
// and write batches), to the primary and to a replica, which is all a
// store sends a server. Not counted: the stream closes sent in the
// background after a streamed read. A file store costs no requests.
func (s *Store) Cost() Cost { return s.conn.cost() }

func (c *serverConn) cost() Cost { return c.meter.cost() }

// cost: a file sends no requests.
func (f *fileConn) cost() Cost { return Cost{} }

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
