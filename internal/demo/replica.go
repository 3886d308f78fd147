package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"kvdeck/internal/retry"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// replica is one simulated service process: its own store connection,
// alarm pollers, queue broker and random source. Everything it does runs
// on its own goroutine (the coord poller and broker call the handlers
// synchronously), so r needs no lock.
type replica struct {
	n       int // 1-based, for error messages
	s       *store.Store
	r       *rand.Rand
	cfg     SimConfig
	t       *tally
	objects map[string]Object // by class + "/" + id
	pollers []*coord.AlarmPoller
	broker  *coord.Broker
}

// consumerBatch is each queue's batch size: thumbnails is a slow worker
// taking one image per poll, so its backlog lingers.
func consumerBatch(q string) int {
	switch q {
	case QueueThumbnails:
		return 1
	case QueueInvoices:
		return 5
	}
	return coord.DefaultMaxBatchSize
}

func newReplica(i int, s *store.Store, cfg SimConfig, t *tally) *replica {
	r := &replica{
		n: i + 1, s: s, cfg: cfg, t: t,
		r:       rand.New(rand.NewPCG(uint64(cfg.Seed), uint64(i+1))),
		objects: map[string]Object{},
		broker:  coord.NewBroker(s),
	}
	for _, class := range Classes() {
		for _, o := range Objects(class) {
			r.objects[class+"/"+o.ID] = o
		}
		r.pollers = append(r.pollers, &coord.AlarmPoller{
			Store: s, Class: class, Handler: r.onAlarm,
			// A held object lease re-posts the alarm after a short wait
			// instead of blocking the poll for the reference's 5 s.
			Lease: coord.LeaseOptions{Timeout: cfg.Tick / 10, Sleep: r.waitForLease},
		})
	}
	for _, q := range Queues() {
		r.broker.Consume(q, r.onBatch, coord.ConsumerOptions{MaxBatchSize: consumerBatch(q)})
	}
	return r
}

// run probes the store like a starting service, then starts a poll every
// Tick plus up to a fifth at random (at once when a poll took longer)
// until ctx ends. Replicas start staggered so that their polls interleave.
func (r *replica) run(ctx context.Context) {
	if !retry.Sleep(ctx, time.Duration(r.n-1)*r.cfg.Tick/time.Duration(r.cfg.Replicas)) {
		return
	}
	r.t.fail(ctx, r.what("startup probe"), coord.Probe(ctx, r.s))
	for ctx.Err() == nil {
		began := time.Now()
		r.tick(ctx)
		if !retry.Sleep(ctx, r.cfg.Tick+between(r.r, 0, r.cfg.Tick/5)-time.Since(began)) {
			return
		}
	}
}

// tick is one poll cycle: the reference poller's work (alarms, queues,
// sweep) with cron claims, requests and the producer in between.
func (r *replica) tick(ctx context.Context) {
	for _, step := range []func(context.Context){r.pollAlarms, r.pollQueues, r.claimTicks, r.handleRequests, r.produce, r.sweep} {
		if ctx.Err() != nil {
			return
		}
		step(ctx)
	}
	r.t.polled(r.cfg.Progress)
}

// what names an operation of this replica for the error sample.
func (r *replica) what(op string) string { return fmt.Sprintf("replica %d: %s", r.n, op) }

// pollAlarms fires the due alarms of every class.
func (r *replica) pollAlarms(ctx context.Context) {
	for _, p := range r.pollers {
		firings, err := p.Poll(ctx, r.s.Now())
		r.t.add(func(s *Summary) {
			for _, f := range firings {
				switch f.Outcome {
				case coord.AlarmFired:
					s.AlarmsFired++
				case coord.AlarmRetrying, coord.AlarmKeptOwn:
					s.AlarmsRetried++
				case coord.AlarmDropped:
					s.AlarmsDropped++
				case coord.AlarmReposted:
					s.AlarmsReposted++
				case coord.AlarmSuperseded:
					s.AlarmsSuperseded++
				case coord.AlarmLost:
					s.AlarmsLost++
				}
			}
		})
		r.t.fail(ctx, r.what("poll alarms of "+p.Class), err)
	}
}

// errHandler is what failing handlers throw.
var errHandler = errors.New("handler failed")

// onAlarm is the alarm handler of every class: poison objects always fail;
// others fail now and then (retried with backoff), sometimes hang for
// about a tick while the poller holds the object's lease (requests for it
// wait and give up), and on success tickers re-arm, other objects
// sometimes schedule a follow-up.
func (r *replica) onAlarm(ctx context.Context, a coord.AlarmInvocation) error {
	o, known := r.objects[a.Class+"/"+a.ID]
	if known && poison(o) {
		return fmt.Errorf("%w: %s %s cannot be processed", errHandler, a.Class, o.Name)
	}
	switch x := r.r.IntN(100); {
	case x < 15:
		return fmt.Errorf("%w: %s/%s: downstream timeout", errHandler, a.Class, a.ID)
	case x < 25:
		retry.Sleep(ctx, between(r.r, r.cfg.Tick/2, 3*r.cfg.Tick/2))
	}
	if a.Class == ClassTicker || r.r.IntN(5) == 0 {
		r.schedule(ctx, a.Class, a.ID)
	}
	return nil
}

// schedule (re)sets the alarm of class/id a little later.
func (r *replica) schedule(ctx context.Context, class, id string) {
	at := r.s.Now() + between(r.r, 500*time.Millisecond, 8*time.Second).Milliseconds()
	err := coord.SetAlarm(ctx, r.s, class, id, at)
	if err == nil {
		r.t.add(func(s *Summary) { s.AlarmsScheduled++ })
	}
	r.t.fail(ctx, r.what("set alarm"), err)
}

// pollQueues delivers the due messages of every queue.
func (r *replica) pollQueues(ctx context.Context) {
	ds, err := r.broker.Poll(ctx, r.s.Now())
	r.t.add(func(s *Summary) {
		for _, d := range ds {
			s.MessagesDelivered++
			if d.Attempts > 1 {
				s.MessagesRedelivered++
			}
			switch d.Outcome {
			case coord.OutcomeAcked:
				s.MessagesAcked++
			case coord.OutcomeRequeued:
				s.MessagesRequeued++
			case coord.OutcomeDropped:
				s.MessagesDropped++
			}
		}
	})
	r.t.fail(ctx, r.what("poll queues"), err)
}

// onBatch is every queue's consumer: it acks most messages, asks for a
// retry after a delay for some, leaves a few undecided (redelivered after
// the backoff), never acks a poison message (dropped at max attempts) and
// now and then throws halfway through a batch.
func (r *replica) onBatch(ctx context.Context, b *coord.Batch) error {
	for i, m := range b.Messages {
		var body struct {
			Poison bool `json:"poison"`
		}
		if json.Unmarshal(m.Body, &body) == nil && body.Poison {
			continue
		}
		switch x := r.r.IntN(100); {
		case x < 3 && i > 0:
			return fmt.Errorf("%w: consumer of %s crashed mid-batch", errHandler, b.Queue)
		case x < 78:
			m.Ack()
		case x < 90:
			m.RetryAfter(between(r.r, 500*time.Millisecond, 2*time.Second))
		}
	}
	return nil
}

// claimTicks claims the current bucket of every schedule: one replica
// wins it.
func (r *replica) claimTicks(ctx context.Context) {
	for _, sch := range Schedules() {
		t, err := coord.ClaimTick(ctx, r.s, sch.Name, sch.Interval, r.s.Now())
		if err != nil {
			r.t.fail(ctx, r.what("claim tick of "+sch.Name), err)
			return
		}
		r.t.add(func(s *Summary) {
			s.CronClaims++
			if t.Won {
				s.CronTicksWon++
			}
		})
	}
}

// sweep deletes the expired rows, as every replica does after its poll.
func (r *replica) sweep(ctx context.Context) {
	res, err := r.s.Sweep(ctx, store.SweepOptions{})
	r.t.add(func(s *Summary) { s.RowsSwept += res.Swept })
	r.t.fail(ctx, r.what("sweep"), err)
}

// waitForLease is the lease retry wait of requests and pollers: it counts
// the contention, then sleeps.
func (r *replica) waitForLease(ctx context.Context, d time.Duration) error {
	r.t.add(func(s *Summary) { s.LeasesContended++ })
	if !retry.Sleep(ctx, d) {
		return ctx.Err()
	}
	return nil
}
