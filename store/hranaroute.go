package store

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
)

// What a store's requests carry beside their statements, on either
// transport, is kept here, in the hranaRoute of each server the store
// talks to (its primary and, when it has one, its replica):
//
//   - the sqld namespace (Target.Namespace), sent as x-namespace-bin
//     (the name in unpadded standard base64) on every HTTP request and
//     on the WebSocket upgrade. sqld 0.24 picks a namespace by the first
//     label of the Host header unless that header names one, so an IP
//     address (http://127.0.0.1:8080 is namespace "127") reaches it too;
//   - on a store with a replica (Options.Replica), the replication index:
//     every answer's index is noted, and a read sent to the replica
//     carries the highest one the store has seen from either server
//     (its own writes included), which sqld makes the replica wait for
//     before it reads. Measured on the pinned sqld: reads on the replica
//     right after a write on the primary were stale 21 to 26 times in 50
//     without it, never with it, for about 1 ms. The index goes on a
//     batch: sqld 0.24.32 honours a statement's own index over HTTP but
//     ignores it over WebSocket (200 reads of 200 were stale there), and
//     honours a batch's on both.
type hranaRoute struct {
	// namespace is sent as namespaceHeader; "" sends none.
	namespace string
	// replica: this server is a replica, and reads sent to it carry seen.
	replica bool
	// seen is the highest replication index the store's servers answered
	// with, shared by its routes.
	seen *atomic.Uint64
	// last is the last index this server answered with (Replication).
	last atomic.Uint64
}

// namespaceHeader names the namespace of a request to sqld.
const namespaceHeader = "x-namespace-bin"

// newRoutes are the routes of a store's primary and of its replica
// (nil when it has none), sharing the index seen.
func newRoutes(namespace string, replica bool) (primary, reads *hranaRoute) {
	seen := new(atomic.Uint64)
	primary = &hranaRoute{namespace: namespace, seen: seen}
	if replica {
		return primary, &hranaRoute{namespace: namespace, replica: true, seen: seen}
	}
	return primary, nil
}

// header adds the route's headers to a request (or to a WebSocket's
// upgrade).
func (r *hranaRoute) header(h http.Header) {
	if r != nil && r.namespace != "" {
		h.Set(namespaceHeader, base64.RawStdEncoding.EncodeToString([]byte(r.namespace)))
	}
}

// note takes an answer's replication index in.
func (r *hranaRoute) note(res pipeResult) {
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
func (r *hranaRoute) stamp(req hranaReq) (hranaReq, func(pipeResult) pipeResult) {
	same := func(res pipeResult) pipeResult { return res }
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
	out := batchReq([]hranaStep{{Stmt: *req.Stmt}})
	out.Batch.ReplicationIndex = text
	return out, unbatch
}

// unbatch is the answer to a statement sent as a batch of one step.
func unbatch(res pipeResult) pipeResult {
	b := res.Batch
	switch {
	case res.Error != nil || b == nil:
	case len(b.StepErrors) > 0 && b.StepErrors[0] != nil:
		return pipeResult{Error: b.StepErrors[0]}
	case len(b.StepResults) > 0 && b.StepResults[0] != nil:
		return pipeResult{Stmt: b.StepResults[0]}
	}
	return pipeResult{Error: res.Error}
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

// Replication is a store's replica lag (Store.Replication): the
// replication index of its primary and of its replica, and how many
// frames the replica is behind (never below zero).
type Replication struct {
	Primary, Replica uint64
	Lag              int64
}

// Replication reads the replica lag of a store opened with a replica:
// the primary's replication index now (one request), less the replica's
// (the index of its last answer to this store, else one request to it).
// Neither read carries an index to wait for: the replica answers as it
// stands. ErrInvalidArgument when the store has no replica.
func (s *Store) Replication(ctx context.Context) (Replication, error) {
	if s.server.reads.route == nil || !s.server.reads.route.replica {
		return Replication{}, fmt.Errorf("%w: %s has no replica", ErrInvalidArgument, s.display)
	}
	var r Replication
	if r.Replica = s.server.reads.route.last.Load(); r.Replica == 0 {
		idx, err := s.indexOf(ctx, s.server.reads)
		if err != nil {
			return r, err
		}
		r.Replica = idx
	}
	idx, err := s.indexOf(ctx, s.server.primary())
	if err != nil {
		return r, err
	}
	r.Primary = idx
	if r.Primary > r.Replica {
		r.Lag = int64(r.Primary - r.Replica)
	}
	return r, nil
}

// indexOf is the replication index a server answers a statement that
// reads nothing with (one request, without an index to wait for).
func (s *Store) indexOf(ctx context.Context, e endpoint) (uint64, error) {
	ctx, cancel := s.requestCtx(ctx)
	defer cancel()
	req := executeReq(hranaStmt{SQL: "SELECT 1", WantRows: true})
	var res pipeResult
	var err error
	if e.ws != nil {
		res, err = e.ws.query(ctx, req)
	} else {
		var out []pipeResult
		if out, err = e.http.send(ctx, nil, []hranaReq{req, closeReq}, e.http.meter, true); err == nil {
			res = out[0]
		}
	}
	if err == nil && res.Error != nil {
		err = errStmt(res.Error)
	}
	if err == nil && res.Stmt == nil {
		err = errNoAnswer
	}
	if err != nil {
		return 0, s.classify(s.timedOut(ctx, err))
	}
	return uint64(res.Stmt.ReplicationIndex), nil
}
