package fleet

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/internal/storetest"
	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

// goldenFleet is a fleet of seven stores at fixed times: two reads each
// (so commits per second and the trends show), one slow read in flight,
// one unreachable, one not a store, one with a name that tries an escape.
func goldenFleet(t *testing.T) Model {
	t.Helper()
	wall := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	m := New(Deps{
		Stores: func() ([]tuiconfig.SavedStore, error) { return nil, nil },
		Open:   func(context.Context, string) (*store.Store, error) { return nil, errors.New("not in this test") },
		Now:    func() int64 { return wall.UnixMilli() },
		Wall:   func() time.Time { return wall },
	}, viewtest.Styles())
	m.setStores([]tuiconfig.SavedStore{
		{Name: "dev", Group: "dev", URL: "file:/home/me/dev.db"},
		{Name: "prod-eu", Group: "prod", URL: "libsql://prod-eu.example.turso.io"},
		{Name: "prod-us", Group: "prod", URL: "libsql://prod-us.example.turso.io"},
		{Name: "staging", Group: "staging", URL: "http://staging.internal:8080"},
		{Name: "tenant-with-a-long-name", Group: "tenants", URL: "https://db.example.com/v2/namespaces/tenant-with-a-long-name"},
		{Name: "legacy", Group: "old", URL: "file:/srv/legacy.db"},
		{Name: "evil\x1b]52;c;aGk=\x07", Group: "x", URL: "file:/tmp/evil.db"},
	})
	seq := func(n int64) *int64 { return &n }
	pulses := map[string][2]coord.Pulse{
		"dev": {{Seq: seq(100), Rows: 60}, {Seq: seq(130), Rows: 61, Expired: 1, Findings: 1}},
		"prod-eu": {{Seq: seq(1_000_000), Rows: 1_000_192, Estimated: true, Sampled: 4096, LeasesHeld: 40, QueueReady: 10},
			{Seq: seq(1_000_500), Rows: 1_000_448, Estimated: true, Sampled: 4096, Expired: 46_884, SampledExpired: 192, LeasesHeld: 41, LeasesExpiring: 3, LeasesExpired: 2,
				AlarmsOverdue: 7, WorstLatenessMs: 95_000, QueueReady: 120, QueueDelayed: 30, OldestReadyMs: 65_000, QueueFinal: 2, Findings: 61, FindingErrors: 1}},
		"prod-us":                 {{Seq: seq(5), Rows: 12}, {Seq: seq(5), Rows: 12}},
		"tenant-with-a-long-name": {{Seq: seq(7), Rows: 3, QueueReady: 1}, {Seq: seq(9), Rows: 3, QueueReady: 2, OldestReadyMs: 1500, Findings: 1}},
		"evil\x1b]52;c;aGk=\x07":  {{Seq: seq(1), Rows: 1}, {Seq: seq(1), Rows: 1}},
	}
	// Six reads a second apart before wall: the trends fill; the last
	// read of each is the pair's second pulse, its seq moved by step(i).
	step := map[string]func(i int64) int64{
		"dev":                     func(i int64) int64 { return 5 * i * i },
		"prod-eu":                 func(i int64) int64 { return 400*i + i%2*300 },
		"tenant-with-a-long-name": func(i int64) int64 { return i % 3 },
	}
	for i := range int64(6) {
		at := wall.Add(time.Duration(i-6) * time.Second)
		for name, ps := range pulses {
			p := ps[0]
			if i == 5 {
				p = ps[1]
			}
			if f := step[name]; f != nil {
				p.Seq = seq(*ps[0].Seq + f(i))
			}
			p.QueueReady = ps[0].QueueReady + int(i)*(ps[1].QueueReady-ps[0].QueueReady)/5
			m.rows[name].note(read{name: name, pulse: p, rtt: time.Duration(12+i) * time.Millisecond}, at)
		}
	}
	m.rows["staging"].note(read{name: "staging", err: fmt.Errorf("%w: staging.internal:8080: connection refused", store.ErrUnreachable)}, wall)
	m.rows["legacy"].note(read{name: "legacy", err: fmt.Errorf("%w: /srv/legacy.db has tables t but no kvdeck store", store.ErrNotStore)}, wall)
	m.rows["prod-us"].reading, m.rows["prod-us"].since = true, wall.Add(-3*time.Second)
	return m
}

// TestFleetGolden: the Fleet view's body at 120x40 and 80x24 (a screen's
// body: 37 and 21 lines), sorted by name and by trouble, filtered.
func TestFleetGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 37}, {80, 21}, {60, 15}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]+3), func(t *testing.T) {
			golden.RequireEqual(t, goldenFleet(t).View(size[0], size[1]))
		})
	}
	t.Run("by-trouble", func(t *testing.T) {
		m := goldenFleet(t)
		m.sortBy = byTrouble
		golden.RequireEqual(t, m.View(120, 37))
	})
	t.Run("filtered", func(t *testing.T) {
		m := goldenFleet(t)
		m.filter.Set("prod", &m.keys.FilterKeys)
		m.cursor = 1
		golden.RequireEqual(t, m.View(80, 21))
	})
}

// TestFleetGoldenMarks: the store the tabs show is marked (●), and why
// enter opened nothing is said in the view, in place of the detail.
func TestFleetGoldenMarks(t *testing.T) {
	m := goldenFleet(t).SetCurrent("prod-eu")
	m.cursor = 3
	m = m.SetNote("cannot open staging (still on prod-eu): unreachable: staging.internal:8080: connection refused")
	golden.RequireEqual(t, m.View(80, 21))
}

// TestFleetStateOfAMissingFile: a saved store whose file is missing is
// "missing file", not "not a store" (that is a database of another
// program's); the error is the engine's own, from a read-only open.
func TestFleetStateOfAMissingFile(t *testing.T) {
	dir := t.TempDir()
	_, missing := store.Open(context.Background(), "file:"+dir+"/gone.db", store.Options{ReadOnly: true, Unchecked: true})
	foreign := "file:" + dir + "/other.db"
	storetest.Exec(t, foreign, "CREATE TABLE t (a)")
	other, err := store.Open(context.Background(), foreign, store.Options{ReadOnly: true})
	if err == nil {
		other.Close()
	}
	for _, c := range []struct {
		err  error
		want string
	}{{missing, "missing file"}, {err, "not a store"}} {
		r := &row{done: true, err: c.err}
		if got := r.state(time.Now()); got != c.want {
			t.Errorf("%v: state %q, want %q", c.err, got, c.want)
		}
	}
}
