package demo

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/retry"
	"kvdeck/store/coord"
)

// releaseTimeout bounds the release of a lease after ctx ended: a lease
// left behind blocks its object until the TTL.
const releaseTimeout = 5 * time.Second

// maxCASAttempts bounds the check-and-set loop of a request counter.
const maxCASAttempts = 10

// handleRequests serves one to three requests, each under its object's
// lease: objects are drawn mostly from a small hot set, so replicas (and
// alarm handlers hanging with a lease) contend. A request that cannot take
// the lease within a quarter tick gives up, like a service answering 503.
func (r *replica) handleRequests(ctx context.Context) {
	for range 1 + r.r.IntN(3) {
		if ctx.Err() != nil {
			return
		}
		r.request(ctx, r.hotObject())
	}
}

// hotObject picks a request's object: usually one of the first three of a
// class, sometimes any.
func (r *replica) hotObject() Object {
	objs := Objects(pick(r.r, []string{ClassCart, ClassCart, ClassCheckout, ClassInventory}))
	if r.r.IntN(10) < 7 {
		objs = objs[:3]
	}
	return pick(r.r, objs)
}

// request handles one request on o: take the lease, count the request,
// refresh the object's cache row, sometimes schedule its alarm, release.
// One request in forty "crashes" and leaves its lease to expire.
func (r *replica) request(ctx context.Context, o Object) {
	lease, err := coord.Acquire(ctx, r.s, o.Class, o.ID, coord.LeaseOptions{Timeout: r.cfg.Tick / 4, Sleep: r.waitForLease})
	switch {
	case errors.Is(err, coord.ErrLeaseContended):
		r.t.add(func(s *Summary) { s.LeaseTimeouts++ })
		return
	case err != nil:
		r.t.fail(ctx, r.what("acquire lease"), err)
		return
	}
	r.t.add(func(s *Summary) { s.LeasesAcquired++ })
	r.countRequest(ctx, o.Class)
	r.writeTTL(ctx, key("cache", o.Class, o.Name), map[string]any{"servedBy": r.n, "at": r.s.Now()}, 2*time.Second, 8*time.Second)
	if !storied(o) && r.r.IntN(4) == 0 {
		r.schedule(ctx, o.Class, o.ID)
	}
	if r.r.IntN(40) == 0 {
		r.t.add(func(s *Summary) { s.LeasesAbandoned++ })
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	released, err := coord.Release(rctx, r.s, lease)
	if released {
		r.t.add(func(s *Summary) { s.LeasesReleased++ })
	}
	r.t.fail(ctx, r.what("release lease"), err)
}

// countRequest increments the class's request counter optimistically:
// read, work a little, commit with a check of the stamp read; a commit
// that fails its check (another replica got there first) reads again.
func (r *replica) countRequest(ctx context.Context, class string) {
	k := CounterKey(class)
	for range maxCASAttempts {
		e, found, err := r.s.Get(ctx, k)
		if err != nil {
			r.t.fail(ctx, r.what("read counter"), err)
			return
		}
		var c Counter
		stamp := ""
		if found {
			stamp = e.Versionstamp()
			_ = json.Unmarshal(e.Value, &c) // a foreign value restarts the count
		}
		if !retry.Sleep(ctx, between(r.r, 20*time.Millisecond, 100*time.Millisecond)) {
			return
		}
		c.N++
		value, _ := json.Marshal(c)
		res, err := r.s.Atomic().Check(k, stamp).Set(k, value).Commit(ctx)
		if err != nil {
			r.t.fail(ctx, r.what("commit counter"), err)
			return
		}
		if res.OK {
			r.t.add(func(s *Summary) { s.CASCommits++ })
			return
		}
		r.t.add(func(s *Summary) { s.CASConflicts++ })
	}
}

// writeTTL writes a row that expires after a random TTL in [lo, hi).
func (r *replica) writeTTL(ctx context.Context, k codec.Key, v any, lo, hi time.Duration) {
	value, _ := json.Marshal(v)
	ttl := between(r.r, lo, hi)
	_, err := r.s.Set(ctx, k, value, &ttl)
	if err == nil {
		r.t.add(func(s *Summary) { s.TTLWrites++ })
	}
	r.t.fail(ctx, r.what("write "+codec.Format(k)), err)
}

// produce is the traffic that keeps the store moving: one to three queue
// messages (a quarter of them delayed, a few poison), an alarm scheduled
// on some object now and then, and a user session that soon expires.
func (r *replica) produce(ctx context.Context) {
	for range 1 + r.r.IntN(3) {
		q := pick(r.r, []string{QueueEmails, QueueEmails, QueueThumbnails, QueueInvoices})
		b := body(r.r, q, r.r.IntN(10000))
		if r.r.IntN(30) == 0 {
			b = poisonBody()
		}
		var delay time.Duration
		if r.r.IntN(4) == 0 {
			delay = between(r.r, time.Second, 10*time.Second)
		}
		raw, _ := json.Marshal(b)
		_, err := coord.Send(ctx, r.s, q, raw, delay)
		if err == nil {
			r.t.add(func(s *Summary) { s.MessagesSent++ })
		}
		r.t.fail(ctx, r.what("send to "+q), err)
	}
	if r.r.IntN(2) == 0 {
		o := pick(r.r, Objects(pick(r.r, []string{ClassCart, ClassCheckout, ClassInventory})))
		if !storied(o) {
			r.schedule(ctx, o.Class, o.ID)
		}
	}
	if r.r.IntN(3) == 0 {
		r.writeTTL(ctx, key("sessions", uuid(r.r)), map[string]any{"user": pick(r.r, users())}, 3*time.Second, 10*time.Second)
	}
}
