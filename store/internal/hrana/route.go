package hrana

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strconv"
	"sync/atomic"
)

// What a store's requests carry beside their statements, on either
// transport, is kept in the Route of each server the store talks to
// (its primary and, when it has one, its replica):
//
//   - the sqld namespace (a store's namespace), sent as x-namespace-bin
//     (the name in unpadded standard base64) on every HTTP request and
//     on the WebSocket upgrade. sqld 0.24 picks a namespace by the first
//     label of the Host header unless that header names one, so an IP
//     address (http://127.0.0.1:8080 is namespace "127") reaches it too;
//   - on a store with a replica (a store opened with one), the replication index:
//     every answer's index is noted, and a read sent to the replica
//     carries the highest one the store has seen from either server
//     (its own writes included), which sqld makes the replica wait for
//     before it reads. Measured on the pinned sqld: reads on the replica
//     right after a write on the primary were stale 21 to 26 times in 50
//     without it, never with it, for about 1 ms. The index goes on a
//     batch: sqld 0.24.32 honours a statement's own index over HTTP but
//     ignores it over WebSocket (200 reads of 200 were stale there), and
//     honours a batch's on both.
type Route struct {
	// namespace is sent as namespaceHeader; "" sends none.
	namespace string
	// replica: this server is a replica, and reads sent to it carry seen.
	replica bool
	// seen is the highest replication index the store's servers answered
	// with, shared by its routes.
	seen *atomic.Uint64
	// last is the last index this server answered with (Last).
	last atomic.Uint64
}

// namespaceHeader names the namespace of a request to sqld.
const namespaceHeader = "x-namespace-bin"

// NewRoutes are the routes of a store's primary and of its replica
// (nil when it has none), sharing the index seen.
func NewRoutes(namespace string, replica bool) (primary, reads *Route) {
	seen := new(atomic.Uint64)
	primary = &Route{namespace: namespace, seen: seen}
	if replica {
		return primary, &Route{namespace: namespace, replica: true, seen: seen}
	}
	return primary, nil
}

// Replica reports whether this server is a store's replica.
func (r *Route) Replica() bool { return r != nil && r.replica }

// Last is the last replication index this server answered with (0:
// none yet).
func (r *Route) Last() uint64 { return r.last.Load() }

// header adds the route's headers to a request (or to a WebSocket's
// upgrade).
func (r *Route) header(h http.Header) {
	if r != nil && r.namespace != "" {
		h.Set(namespaceHeader, base64.RawStdEncoding.EncodeToString([]byte(r.namespace)))
	}
}

// note takes an answer's replication index in.
func (r *Route) note(res Result) {
	if r == nil {
		return
	}
	idx := uint64(0)
	if res.Stmt != nil {
		idx = uint64(res.Stmt.ReplicationIndex)
	}
	if res.Batch != nil {
		idx = max(idx, uint64(res.Batch.ReplicationIndex))
	}
	if idx == 0 {
		return
	}
	r.last.Store(idx)
	for {
		cur := r.seen.Load()
		if idx <= cur || r.seen.CompareAndSwap(cur, idx) {
			return
		}
	}
}

// stamp returns a read request as it is sent to this server, and what
// turns its answer back into the answer to req: a read to a replica
// carries the highest index seen (none before any answer), a statement
// as a batch of one step.
func (r *Route) stamp(req Req) (Req, func(Result) Result) {
	same := func(res Result) Result { return res }
	if r == nil || !r.replica || r.seen.Load() == 0 || (req.Stmt == nil && req.Batch == nil) {
		return req, same
	}
	text := strconv.FormatUint(r.seen.Load(), 10)
	if req.Batch != nil {
		b := *req.Batch
		b.ReplicationIndex = text
		req.Batch = &b
		return req, same
	}
	out := BatchReq([]Step{{Stmt: *req.Stmt}})
	out.Batch.ReplicationIndex = text
	return out, unbatch
}

// unbatch is the answer to a statement sent as a batch of one step.
func unbatch(res Result) Result {
	b := res.Batch
	switch {
	case res.Error != nil || b == nil:
	case len(b.StepErrors) > 0 && b.StepErrors[0] != nil:
		return Result{Error: b.StepErrors[0]}
	case len(b.StepResults) > 0 && b.StepResults[0] != nil:
		return Result{Stmt: b.StepResults[0]}
	}
	return Result{Error: res.Error}
}

// replicationIndex is an answer's replication_index: sqld sends the
// number as a string, or null (a statement inside a batch); a number
// is taken too, and anything else counts as none.
type replicationIndex uint64

// UnmarshalJSON implements json.Unmarshaler.
func (x *replicationIndex) UnmarshalJSON(b []byte) error {
	n, err := strconv.ParseUint(string(bytes.Trim(b, `"`)), 10, 64)
	if err != nil {
		n = 0
	}
	*x = replicationIndex(n)
	return nil
}
