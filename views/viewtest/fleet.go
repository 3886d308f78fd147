package viewtest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
)

// FleetStore is one saved store of a test fleet.
type FleetStore struct{ Name, Group, URL string }

// Fleet gives the tab a fleet (views.Members) of stores showing group,
// each opened read-only and unchecked on clock when read and closed
// after (opened counts the opens, when not nil).
func Fleet(clock *store.VirtualClock, group string, stores ...FleetStore) Option {
	return func(d *views.Deps) {
		d.Fleet = views.Members{
			Group: group,
			List: func() ([]views.Member, error) {
				out := make([]views.Member, len(stores))
				for i, s := range stores {
					out[i] = views.Member{Name: s.Name, Group: s.Group}
				}
				return out, nil
			},
			Open: func(ctx context.Context, name string) (*store.Store, error) {
				for _, s := range stores {
					if s.Name == name {
						return store.Open(ctx, s.URL, store.Options{ReadOnly: true, Unchecked: true, Clock: clock.Now})
					}
				}
				return nil, fmt.Errorf("no store %s", name)
			},
		}
	}
}

// DeadURL is a server no test listens on: a fleet's store that is down.
const DeadURL = "http://127.0.0.1:1"

// goldenFleet is the fleet of the fleet-mode goldens, in group prod: the
// coordination anomalies (anomalies), the reference (ref), a server that
// is down (dead), a store of another group (elsewhere, not shown) and a
// name that tries an escape.
func goldenFleet(t *testing.T) (*store.Store, *store.VirtualClock, Option) {
	t.Helper()
	s, clock, anomalies := CoordAnomalies(t)
	ref := storetest.CopyReference(t)
	return s, clock, Fleet(clock, "prod",
		FleetStore{"anomalies", "prod", anomalies}, FleetStore{"ref", "prod", ref},
		FleetStore{"dead", "prod", DeadURL}, FleetStore{"elsewhere", "dev", ref},
		FleetStore{"evil\x1b]52;c;aGk=\x07", "prod", ref})
}

// FleetMode runs each check of a tab's fleet mode in a subtest: its
// goldens (FleetGoldens), a fleet of a file, a sqld and a dead URL
// (FleetOfFileSqldAndDead: want, a text of the reference's first row;
// write, a write key) and the budget (FleetBudget: tick, the root's
// live tick).
func FleetMode[V Model[V], P Sizer[V]](t *testing.T, build func(views.Deps, themes.Styles) V, tick func(V) tea.Cmd, want, write string) {
	t.Helper()
	t.Run("golden", func(t *testing.T) { FleetGoldens[V, P](t, build) })
	t.Run("file-sqld-dead", func(t *testing.T) { FleetOfFileSqldAndDead[V, P](t, build, want, write) })
	t.Run("budget", func(t *testing.T) { FleetBudget[V, P](t, build, tick) })
}

// FleetGoldens: the tab build makes, on the wide and the small screens,
// over goldenFleet, after W turned its fleet mode on (every store read),
// is its golden.
func FleetGoldens[V Model[V], P Sizer[V]](t *testing.T, build func(views.Deps, themes.Styles) V) {
	t.Helper()
	for _, screen := range append([]Screen{Wide()}, SmallScreens()...) {
		t.Run(screen.String(), func(t *testing.T) {
			s, clock, fleet := goldenFleet(t)
			w, h := screen.Body()
			hs := Start[V, P](t, s, clock, w, h, build, fleet)
			hs.Keys("W")
			golden.RequireEqual(t, hs.M.View())
		})
	}
}

// FleetOfFileSqldAndDead: the tab's fleet mode over a file store and a
// sqld store (the reference's rows each) and a dead URL shows the rows
// of both stores, each with its STORE, and the dead one as a row that
// says unreachable; its writes are refused with the fleet's reason (the
// store shown is read-only: that is not the reason given), and enter
// asks the root for the row's store. want is a text of the reference's
// rows the screen must show (an alarm's id, a queue's name).
func FleetOfFileSqldAndDead[V Model[V], P Sizer[V]](t *testing.T, build func(views.Deps, themes.Styles) V, want, write string) {
	t.Helper()
	srv := sqldtest.Start(t)
	storetest.CopyReferenceRows(t, srv.URL)
	s, clock, file := Reference(t, true) // the fleet's reason, not read-only, refuses the write
	hs := Start[V, P](t, s, clock, 120, 37, build, Fleet(clock, "",
		FleetStore{"file", "g", file}, FleetStore{"sqld", "g", srv.URL}, FleetStore{"dead", "g", DeadURL}))
	hs.Keys("W")
	hs.RequireView("fleet: every saved store", "3 store(s)", "1 down", "STORE", "dead", "✗ unreachable")
	for _, name := range []string{"file", "sqld"} {
		if line := hs.ViewLine(name + " "); !strings.Contains(line, want) {
			// The first row of each store holds want: the stores hold the
			// same rows, and the rows of both are merged in one order.
			t.Errorf("no row of %s shows %q (first: %q)\n%s", name, want, line, hs.M.View())
		}
	}
	hs.Keys(write)
	hs.RequireFlash("fleet mode: ", "acts on one store, not the fleet: enter opens the row's store")
	hs.Keys("enter")
	if len(hs.Opened) != 1 || hs.Opened[0].Store != "file" && hs.Opened[0].Store != "sqld" || hs.Opened[0].Key == nil {
		t.Fatalf("enter asked the root for %+v, want the first row's store and key", hs.Opened)
	}
	hs.Keys("W")
	if strings.Contains(hs.M.View(), "STORE") {
		t.Errorf("W again shows the fleet still:\n%s", hs.M.View())
	}
}

// FleetBudget: n stores behind a latency proxy (one sqld holding the
// reference's rows, each store a name for it), the fleet mode turned on
// and read again twice: each refresh costs each store exactly what one
// read of one store costs (measured first, on one store alone), and
// rows of every store show. tick is the root's live tick (FleetTick).
func FleetBudget[V Model[V], P Sizer[V]](t *testing.T, build func(views.Deps, themes.Styles) V, tick func(V) tea.Cmd) {
	t.Helper()
	srv := sqldtest.Start(t)
	storetest.CopyReferenceRows(t, srv.URL)
	proxy := sqldtest.StartProxy(t, srv.URL, 20*time.Millisecond)
	clock := FixedClock()
	s := Open(t, srv.URL, clock, true)
	one := Start[V, P](t, s, clock, 120, 37, build, Fleet(clock, "", FleetStore{"s0", "", proxy.URL}))
	single := proxy.Count(func() { one.Keys("W") })
	const n = 12
	var stores []FleetStore
	for i := range n {
		stores = append(stores, FleetStore{fmt.Sprintf("s%02d", i), "", proxy.URL})
	}
	hs := Start[V, P](t, s, clock, 120, 37, build, Fleet(clock, "", stores...))
	reqs := proxy.Count(func() { hs.Keys("W") })
	t.Logf("one store: %d request(s) a read; %d stores: %d on A", single, n, reqs)
	if single < 1 || reqs != n*single {
		t.Errorf("A over %d stores: %d requests, want %d (one read of %d request(s) per store)", n, reqs, n*single, single)
	}
	for round := 1; round <= 2; round++ {
		reqs = proxy.Count(func() { hs.Settle(tick(hs.M)) })
		if reqs != n*single {
			t.Errorf("refresh %d: %d requests, want %d", round, reqs, n*single)
		}
	}
	hs.RequireView("s00", "s11", fmt.Sprintf("%d store(s)", n))
}
