package changefeed_test

import (
	"strings"
	"testing"
	"time"

	"kvdeck/internal/changefeed"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// feedEnv is one case's store; the row the consumer saw first is at
// ["row"].
type feedEnv struct {
	t     *testing.T
	s     *store.Store
	url   string
	clock *storetest.Clock
}

func (e feedEnv) set(ttl *time.Duration) {
	e.t.Helper()
	if _, err := e.s.Set(storetest.Ctx(e.t), storetest.Key(e.t, `["row"]`), []byte(`2`), ttl); err != nil {
		e.t.Fatal(err)
	}
}

func (e feedEnv) delete() {
	e.t.Helper()
	if err := e.s.Delete(storetest.Ctx(e.t), storetest.Key(e.t, `["row"]`)); err != nil {
		e.t.Fatal(err)
	}
}

// elsewhere commits a row beside the one seen: a read re-reads what it
// saw after a commit.
func (e feedEnv) elsewhere() {
	e.t.Helper()
	if _, err := e.s.Set(storetest.Ctx(e.t), storetest.Key(e.t, `["other"]`), []byte(`1`), nil); err != nil {
		e.t.Fatal(err)
	}
}

func dur(d time.Duration) *time.Duration { return &d }

// TestWhatHappened is the one table of the consumer's rule: a row the
// consumer saw and then (act) deleted, expired, swept or rewritten is a
// delete, an expire or a set, judged at the later of the reader's clock
// reading (what act returns) and the store's; on a file and on sqld,
// with the rows seen in memory and on disk.
func TestWhatHappened(t *testing.T) {
	cases := []struct {
		name string
		ttl  *time.Duration // the row's when first seen
		act  func(e feedEnv) (now int64)
		want string
	}{
		{"deleted", nil, func(e feedEnv) int64 { e.delete(); return e.clock.Now() }, "delete"},
		{"deleted before its expiry", dur(10 * time.Second), func(e feedEnv) int64 {
			e.clock.Add(time.Second)
			e.delete()
			return e.clock.Now()
		}, "delete"},
		{"expired, not swept", dur(time.Second), func(e feedEnv) int64 { e.clock.Add(2 * time.Second); return e.clock.Now() }, "expire"},
		{"expired and swept", dur(time.Second), func(e feedEnv) int64 {
			e.clock.Add(2 * time.Second)
			e.delete()
			return e.clock.Now()
		}, "expire"},
		{"expired between the two clock readings", dur(time.Second), func(e feedEnv) int64 {
			now := e.clock.Now() + 1000 - 4 // the reader's reading, 4 ms before the expiry
			e.clock.Add(time.Second)        // the store's, at the read
			e.elsewhere()
			return now
		}, "expire"},
		{"set again before its expiry", dur(time.Second), func(e feedEnv) int64 {
			e.set(dur(10 * time.Second))
			e.clock.Add(2 * time.Second)
			return e.clock.Now()
		}, "set over seen"},
		{"deleted and written again", nil, func(e feedEnv) int64 { e.delete(); e.set(nil); return e.clock.Now() }, "set over seen"},
		{"rewritten with no stamp (TEXT ver)", nil, func(e feedEnv) int64 {
			storetest.Exec(e.t, e.url, `UPDATE kv SET v = '2', ver = 'x' WHERE k = x'02726f7700'`) // ["row"]
			return e.clock.Now()
		}, `set over seen, odd: ver is TEXT "x"`},
		{"rewritten already expired", nil, func(e feedEnv) int64 { e.set(dur(0)); return e.clock.Now() }, "set over seen; expire"},
	}
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		for _, rows := range []string{"memory", "disk"} {
			for _, tc := range cases {
				t.Run(rows+"/"+tc.name, func(t *testing.T) {
					e := feedEnv{t: t, url: b.URL(t), clock: storetest.NewClock(storetest.T0)}
					e.s = storetest.Open(t, e.url, store.Options{Clock: e.clock.Now, Create: true})
					if _, err := e.s.Set(storetest.Ctx(t), storetest.Key(t, `["row"]`), []byte(`1`), tc.ttl); err != nil {
						t.Fatal(err)
					}
					c := changefeed.New(newRows(t, rows))
					if got := describe(read(t, e, c, e.clock.Now())); got != "set" {
						t.Fatalf("the first read: %s, want set", got)
					}
					now := tc.act(e)
					events := read(t, e, c, now)
					if got := describe(events); got != tc.want {
						t.Errorf("%s, want %s", got, tc.want)
					}
					for _, ev := range events {
						if ev.At != e.clock.Now() {
							t.Errorf("%s judged at %d, want the store's reading %d", ev.Kind, ev.At, e.clock.Now())
						}
					}
					if got := describe(read(t, e, c, e.clock.Now())); got != "" {
						t.Errorf("the next read: %s, want nothing", got)
					}
				})
			}
		}
	})
}

// newRows is the rows seen of kind ("memory" or "disk").
func newRows(t *testing.T, kind string) changefeed.Rows {
	t.Helper()
	if kind == "memory" {
		return &changefeed.MemRows{Max: 100}
	}
	r, err := changefeed.NewDiskRows(4<<10, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// read reads the feed to its end, re-reading every row seen, with the
// reader's clock at now.
func read(t *testing.T, e feedEnv, c *changefeed.Consumer, now int64) []changefeed.Event {
	t.Helper()
	var out []changefeed.Event
	for req := c.Next(16); ; req = c.Continue() {
		p, err := e.s.Changes(storetest.Ctx(t), req.Options(nil, 0))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c.Apply(p, req, now)...)
		if !p.More && p.Walk == nil {
			return out
		}
	}
}

// describe is what events say of the row ["row"] (not of ["other"]).
func describe(events []changefeed.Event) string {
	var out []string
	for _, ev := range events {
		if k := ev.Entry().Key; len(k) == 1 && k[0].StringValue() == "other" {
			continue
		}
		s := ev.Kind.String()
		if ev.Kind == changefeed.Set && ev.Old != nil {
			s += " over seen"
		}
		if ev.Odd != "" {
			s += ", odd: " + ev.Odd
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}
