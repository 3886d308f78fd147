package hrana

import "sync/atomic"

// Cost is what requests cost, as counted on the way: the requests and
// their bytes each way, and the rows the server says it read and wrote
// (Hrana's rows_read and rows_written; for a streamed read, whose answer
// on sqld 0.24.32 does not say, the rows it returned: AddRead).
type Cost struct {
	Requests      int64
	BytesSent     int64
	BytesReceived int64
	RowsRead      int64
	RowsWritten   int64
}

// Meter counts the requests of the clients that share it. Not counted:
// the stream closes sent in the background after a streamed read.
type Meter struct {
	requests, out, in, read, written atomic.Int64
}

// Cost is what the requests cost so far.
func (m *Meter) Cost() Cost {
	return Cost{Requests: m.requests.Load(), BytesSent: m.out.Load(), BytesReceived: m.in.Load(), RowsRead: m.read.Load(), RowsWritten: m.written.Load()}
}

// AddRead counts n rows the server read for a streamed answer.
func (m *Meter) AddRead(n int64) { m.read.Add(n) }

// sent counts a request of n bytes.
func (m *Meter) sent(n int) {
	if m == nil {
		return
	}
	m.requests.Add(1)
	m.out.Add(int64(n))
}

// received counts n bytes of answer.
func (m *Meter) received(n int) {
	if m != nil {
		m.in.Add(int64(n))
	}
}

// rows adds the server's row counts of one pipeline answer.
func (m *Meter) rows(r Result) {
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

func (m *Meter) stmtRows(r *StmtResult) {
	if r != nil {
		m.read.Add(r.RowsRead)
		m.written.Add(r.RowsWritten)
	}
}
