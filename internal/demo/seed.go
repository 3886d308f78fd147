package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// ErrNotDemoStore: the store holds rows but no demo marker. Seed refuses to
// write fake leases, alarms and messages next to a real service's state
// (and the simulation would consume its queues).
var ErrNotDemoStore = errors.New("not a demo store")

// SeedReport says what Seed did.
type SeedReport struct {
	// Reused is true when the store already held the demo marker and
	// nothing was written; Seed and SeededAt then come from the marker.
	Reused   bool  `json:"reused"`
	Seed     int64 `json:"seed"`
	SeededAt int64 `json:"seededAt"`
	// The rows written, by area (all zero when Reused).
	Rows     int `json:"rows"`
	Leases   int `json:"leases"`
	Alarms   int `json:"alarms"`
	Messages int `json:"messages"`
	CronRows int `json:"cronRows"`
	// TTLRows counts the rows written with an expiry: leases, cron ticks,
	// cache and session rows.
	TTLRows int `json:"ttlRows"`
	// Expired counts the rows written already expired (not swept).
	Expired int `json:"expired"`
}

// marker is the value of MarkerKey.
type marker struct {
	Seed     int64 `json:"seed"`
	SeededAt int64 `json:"seededAt"`
	Version  int   `json:"version"`
}

// Seed fills an empty store with the coordination state of a few running
// services around now (epoch ms; pass the store's clock): live and expired
// leases, alarms (some overdue, some retrying, two poison ones, one that
// will never fire, one orphan due entry), queue backlogs with delayed and
// poison messages, past cron buckets, TTL'd cache and session rows (some
// expired, not swept), a leftover startup probe, the mode marker and plain
// app data. The same seed writes the same keys and values. A store that
// already holds the demo marker is reused untouched; any other non-empty
// store is refused with ErrNotDemoStore.
func Seed(ctx context.Context, s *store.Store, seed int64, now int64) (SeedReport, error) {
	e, found, err := s.Get(ctx, MarkerKey())
	if err != nil {
		return SeedReport{}, fmt.Errorf("read demo marker: %w", err)
	}
	if found {
		var m marker
		if err := json.Unmarshal(e.Value, &m); err != nil {
			return SeedReport{}, fmt.Errorf("%w: the demo marker %s holds %s", ErrNotDemoStore, codec.Format(MarkerKey()), e.Value)
		}
		return SeedReport{Reused: true, Seed: m.Seed, SeededAt: m.SeededAt}, nil
	}
	v, err := s.Version(ctx)
	if err != nil {
		return SeedReport{}, err
	}
	if v.Rows > 0 {
		return SeedReport{}, fmt.Errorf("%w: the store holds %d rows and no %s marker; kvdeck demo seeds only an empty store or its own", ErrNotDemoStore, v.Rows, codec.Format(MarkerKey()))
	}
	w := &seeder{ctx: ctx, s: s, r: rand.New(rand.NewPCG(uint64(seed), 0x5eed)), now: now, rep: SeedReport{Seed: seed, SeededAt: now}}
	for _, step := range []func() error{w.meta, w.appData, w.leases, w.alarms, w.queues, w.cron, w.ttlRows} {
		if err := step(); err != nil {
			return w.rep, err
		}
	}
	value, _ := json.Marshal(marker{Seed: seed, SeededAt: now, Version: MarkerVersion})
	res, err := s.Atomic().Check(MarkerKey(), "").Set(MarkerKey(), value).Commit(ctx)
	if err != nil {
		return w.rep, fmt.Errorf("write demo marker: %w", err)
	}
	if !res.OK {
		return w.rep, fmt.Errorf("%w: another kvdeck demo seeded this store at the same time", ErrNotDemoStore)
	}
	w.rep.Rows++
	return w.rep, nil
}

// seeder writes the seed's rows; r makes every choice, so a seed always
// yields the same content.
type seeder struct {
	ctx context.Context
	s   *store.Store
	r   *rand.Rand
	now int64
	rep SeedReport
}

// at is now moved by d.
func (w *seeder) at(d time.Duration) int64 { return w.now + d.Milliseconds() }

// put writes rows in one commit, like one service request would. A row's
// expiresAt (absolute epoch ms, 0 for none) may lie in the past: the row
// is then stored already expired, as if no sweeper had run since.
func (w *seeder) put(rows ...row) error {
	muts := make([]store.Mutation, len(rows))
	for i, r := range rows {
		v, err := json.Marshal(r.value)
		if err != nil {
			return fmt.Errorf("seed %s: %w", codec.Format(r.key), err)
		}
		muts[i] = store.Mutation{Type: store.MutationSet, Key: r.key, Value: v}
		if r.expiresAt != 0 {
			in := time.Duration(r.expiresAt-w.s.Now()) * time.Millisecond
			muts[i].ExpireIn = &in
			w.rep.TTLRows++
			if r.expiresAt <= w.now {
				w.rep.Expired++
			}
		}
	}
	if _, err := w.s.Commit(w.ctx, nil, muts); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	w.rep.Rows += len(rows)
	return nil
}

// row is one row to seed.
type row struct {
	key       codec.Key
	value     any
	expiresAt int64
}

// meta writes the mode marker and a probe row left by a replica that
// crashed during its startup probe.
func (w *seeder) meta() error {
	if err := coord.SetMode(w.ctx, w.s, coord.ModeCentral); err != nil {
		return err
	}
	w.rep.Rows++
	return w.put(row{key: coord.ProbeKey(uuid(w.r)), value: true})
}

// leases writes the object leases held at now: fresh ones, one held for
// long (a hung holder) and one that expired and was never swept.
func (w *seeder) leases() error {
	held := []struct {
		obj Object
		age time.Duration // how long ago it was taken; past 30 s it expired
	}{
		{Objects(ClassCart)[0], between(w.r, time.Second, 5*time.Second)},
		{Objects(ClassCheckout)[2], between(w.r, 500*time.Millisecond, 3*time.Second)},
		{Objects(ClassInventory)[1], between(w.r, 14*time.Second, 20*time.Second)},
		{Objects(ClassCart)[1], between(w.r, 50*time.Second, 80*time.Second)},
	}
	for _, h := range held {
		exp := w.at(coord.DefaultLeaseTTL - h.age)
		if err := w.put(row{coord.LeaseKey(h.obj.Class, h.obj.ID), holder{uuid(w.r)}, exp}); err != nil {
			return err
		}
		w.rep.Leases++
	}
	return nil
}

// holder is the value of a lease or cron tick row.
type holder struct {
	Holder string `json:"holder"`
}

// alarms schedules alarms through the coord library (SetAlarm and
// ScheduleRetry write both rows like a service), then writes the two
// broken ones by hand.
func (w *seeder) alarms() error {
	for _, class := range Classes() {
		for _, o := range Objects(class) {
			at, retry, ok := w.alarmFor(o)
			if !ok {
				continue
			}
			if err := coord.ScheduleRetry(w.ctx, w.s, o.Class, o.ID, at, retry); err != nil {
				return err
			}
			w.rep.Rows += 2
			w.rep.Alarms++
		}
	}
	// A claimer took the due entry of cart:heidi and crashed before it
	// cleared the by-id record: it will never fire.
	nf := Object{Class: ClassCart, Name: neverFires, ID: ID(neverFires)}
	rec := coord.AlarmRecord{EpochMs: w.at(-2 * time.Minute)}
	if err := w.put(row{key: coord.AlarmByIDKey(nf.Class, nf.ID), value: rec}); err != nil {
		return err
	}
	// A due entry whose by-id record is gone: an orphan a poller will
	// claim and drop as superseded.
	od := Object{Class: ClassTicker, Name: orphanDue, ID: ID(orphanDue)}
	rec = coord.AlarmRecord{EpochMs: w.at(-2 * time.Second)}
	if err := w.put(row{key: coord.AlarmDueKey(od.Class, rec.EpochMs, od.ID), value: rec}); err != nil {
		return err
	}
	w.rep.Alarms += 2
	return nil
}

// alarmFor decides the alarm of o: due time, retry count, and whether it
// has one written by ScheduleRetry.
func (w *seeder) alarmFor(o Object) (at int64, retry int, ok bool) {
	switch o.Name {
	case poisonRetrying:
		return w.at(3 * time.Second), coord.PoisonRetryCount, true
	case poisonFinal:
		return w.at(2 * time.Second), coord.MaxAlarmRetries, true
	case neverFires, orphanDue:
		return 0, 0, false
	}
	if o.Class != ClassTicker && w.r.IntN(10) < 4 {
		return 0, 0, false // no alarm pending
	}
	switch {
	case o.Class == ClassTicker: // tickers re-arm every few seconds
		at = w.at(between(w.r, -time.Second, 5*time.Second))
	case w.r.IntN(3) == 0: // overdue: no poller has run for a while
		at = w.at(-between(w.r, time.Second, 90*time.Second))
	default:
		at = w.at(between(w.r, 5*time.Second, 3*time.Minute))
	}
	if w.r.IntN(6) == 0 {
		retry = 1 + w.r.IntN(3)
	}
	return at, retry, true
}
