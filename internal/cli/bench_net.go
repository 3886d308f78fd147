package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/bench"
	"kvdeck/internal/latency"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// netJSON is one line of bench's network section: what one command or
// screen load costs over the link, counted by a proxy in front of the
// server.
type netJSON struct {
	Target     string  `json:"target"`
	Op         string  `json:"op"`
	Requests   int64   `json:"requests"`
	Ms         float64 `json:"ms"`
	Rows       int64   `json:"rows,omitempty"`
	RowsPerSec float64 `json:"rowsPerSec,omitempty"`
	LatencyMs  int64   `json:"latencyMs"`
	// What the store's meter counted (store.Cost): bytes each way and
	// the rows the server reports it read and wrote.
	BytesSent     int64 `json:"bytesSent"`
	BytesReceived int64 `json:"bytesReceived"`
	ServerRead    int64 `json:"serverRowsRead"`
	ServerWritten int64 `json:"serverRowsWritten"`
}

// network measures, through a latency proxy in front of the server, the
// requests and time of each CLI command (opening included, as a command
// runs) and of the reads each TUI screen makes (after open). It reads the
// store's own rows and writes only under [Namespace, run].
func (c *BenchCmd) network(app *App, renv *bench.Env) ([]netJSON, error) {
	p, err := latency.New(c.Remote, c.Latency)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	url := p.URL
	if t, err := store.ParseTarget(c.Remote); err == nil && t.Transport == store.TransportWS {
		url = p.WSURL
	}
	r := &netRun{p: p, url: url, token: app.Globals.ResolveToken(app.Env), latency: c.Latency}
	for _, st := range c.netSteps(app.Context(), renv, time.Now().UnixMilli()) {
		if err := r.measure(app.Context(), st); err != nil {
			return r.out, err
		}
	}
	return r.out, nil
}

// netStep is one measured operation of the network bench: withOpen
// counts opening the store in its requests (a CLI command); otherwise the
// store is opened before (a TUI session's later requests).
type netStep struct {
	op       string
	withOpen bool
	fn       func(s *store.Store) (int64, error)
}

// oneCallOps are the steps that open as get, set, delete and atomic do
// (Opening.OneCall): the schema check goes with their one call.
var oneCallOps = map[string]bool{"get (open + get)": true, "set (open + set)": true}

// netRun measures steps through the latency proxy and keeps their lines.
type netRun struct {
	p       *latency.Proxy
	url     string
	token   string
	latency time.Duration
	out     []netJSON
}

func (r *netRun) open(ctx context.Context, oneCall bool) (*store.Store, error) {
	return store.Open(ctx, r.url, store.Options{AuthToken: r.token, OneShot: oneCall})
}

// measure runs one step, counting the proxy's requests and the time.
func (r *netRun) measure(ctx context.Context, st netStep) error {
	var s *store.Store
	var err error
	if !st.withOpen {
		if s, err = r.open(ctx, false); err != nil {
			return err
		}
		defer s.Close()
	}
	var rows int64
	var before store.Cost
	began := time.Now()
	n := r.p.Count(func() {
		if st.withOpen {
			if s, err = r.open(ctx, oneCallOps[st.op]); err != nil {
				return
			}
			defer s.Close()
		}
		before = s.Cost()
		rows, err = st.fn(s)
	})
	took := time.Since(began)
	if err != nil {
		return fmt.Errorf("%s: %w", st.op, err)
	}
	line := netJSON{Target: "network", Op: st.op, Requests: n, Ms: float64(took.Microseconds()) / 1000, Rows: rows, LatencyMs: r.latency.Milliseconds()}
	if c := s.Cost(); st.withOpen {
		line.BytesSent, line.BytesReceived, line.ServerRead, line.ServerWritten = c.BytesSent, c.BytesReceived, c.RowsRead, c.RowsWritten
	} else {
		line.BytesSent, line.BytesReceived = c.BytesSent-before.BytesSent, c.BytesReceived-before.BytesReceived
		line.ServerRead, line.ServerWritten = c.RowsRead-before.RowsRead, c.RowsWritten-before.RowsWritten
	}
	if rows > 0 && took > 0 {
		line.RowsPerSec = float64(rows) / took.Seconds()
	}
	r.out = append(r.out, line)
	return nil
}

// netSteps are the CLI commands and TUI screens the network bench
// measures, in order (the TUI's expand step uses the prefix the first
// frame found largest).
func (c *BenchCmd) netSteps(ctx context.Context, renv *bench.Env, now int64) []netStep {
	probe := codec.Key{codec.String(bench.Namespace), codec.String(renv.Run()), codec.String("net"), codec.Number(0)}
	var biggest codec.Key
	return []netStep{
		{"open", true, func(*store.Store) (int64, error) { return 0, nil }},
		{"get (open + get)", true, func(s *store.Store) (int64, error) { _, _, err := s.Get(ctx, probe); return 0, err }},
		{"set (open + set)", true, func(s *store.Store) (int64, error) { _, err := s.Set(ctx, probe, []byte(`1`), nil); return 0, err }},
		{"stats", true, func(s *store.Store) (int64, error) { st, err := s.Stats(ctx, now); return st.Rows, err }},
		{"doctor", true, func(s *store.Store) (int64, error) { _, err := coord.Doctor(ctx, s, now); return 0, err }},
		{"sweep --dry-run", true, func(s *store.Store) (int64, error) {
			var n int64
			_, err := s.Sweep(ctx, store.SweepOptions{Now: now, DryRun: true, Each: func(store.Entry) error { n++; return nil }})
			return n, err
		}},
		{"dump", true, func(s *store.Store) (int64, error) {
			var n int64
			err := s.DumpAll(ctx, nil, func(e store.Entry) error { n++; _ = codec.FormatStamp(e.Ver); return nil })
			return n, err
		}},
		{"load", true, func(s *store.Store) (int64, error) { return c.netLoad(ctx, s, renv) }},
		{"tui: first frame (top level)", false, func(s *store.Store) (int64, error) {
			n, most, err := netFirstFrame(ctx, s)
			biggest = most
			return n, err
		}},
		{"tui: expand the largest prefix", false, func(s *store.Store) (int64, error) {
			page, err := s.Children(ctx, biggest, store.ChildrenOptions{Limit: 40})
			return int64(len(page.Children)), err
		}},
		{"tui: Leases tab", false, func(s *store.Store) (int64, error) {
			if _, _, err := coord.InspectLeases(ctx, s, now); err != nil {
				return 0, err
			}
			_, _, err := coord.InspectCron(ctx, s, "", now)
			return 0, err
		}},
		{"tui: Alarms tab", false, func(s *store.Store) (int64, error) { _, _, err := coord.InspectAlarms(ctx, s, "", now); return 0, err }},
		{"tui: Queues tab", false, func(s *store.Store) (int64, error) {
			_, _, err := coord.InspectQueues(ctx, s, "", now, 0)
			return 0, err
		}},
		{"tui: Sweep tab (census)", false, func(s *store.Store) (int64, error) {
			// The tab's census: the next hour in 30 slices, the expiry details.
			hour := time.Hour.Milliseconds()
			st, err := s.Census(ctx, store.CensusOptions{Now: now, Soon: now + 10*time.Minute.Milliseconds(),
				Expiring: store.ExpiringOptions{Span: hour, Buckets: 30}, Expiries: true})
			if err == nil && st.Expired > 0 {
				err = s.ScanExpired(ctx, nil, now, 200, func(store.Entry) error { return nil })
			}
			return st.Rows, err
		}},
		{"tui: idle refresh tick", false, func(s *store.Store) (int64, error) { _, err := s.Version(ctx); return 0, err }},
	}
}

// netLoad writes --load-rows rows in batches as kvdeck load commits them.
func (c *BenchCmd) netLoad(ctx context.Context, s *store.Store, renv *bench.Env) (int64, error) {
	var n int64
	for n < int64(c.LoadRows) {
		var sets []store.Mutation
		for i := 0; i < loadBatchRemote && n < int64(c.LoadRows); i++ {
			sets = append(sets, store.Mutation{Type: store.MutationSet, Value: []byte(`{"n":1,"name":"loaded row"}`),
				Key: codec.Key{codec.String(bench.Namespace), codec.String(renv.Run()), codec.String("load"), codec.Number(float64(n))}})
			n++
		}
		if _, err := s.SetMany(ctx, sets); err != nil {
			return n, err
		}
	}
	return n, nil
}

// netFirstFrame is the TUI's first frame: the top level and the version;
// it also names the largest prefix.
func netFirstFrame(ctx context.Context, s *store.Store) (int64, codec.Key, error) {
	page, err := s.Children(ctx, nil, store.ChildrenOptions{Limit: 40})
	if err != nil {
		return 0, nil, err
	}
	var most int64
	var biggest codec.Key
	for _, ch := range page.Children {
		if !ch.Undecodable && ch.Count > most {
			most, biggest = ch.Count, codec.Key{ch.Part}
		}
	}
	_, err = s.Version(ctx)
	return int64(len(page.Children)), biggest, err
}

func (c *BenchCmd) printNetwork(app *App, title string, lines []netJSON) {
	header := "what\trequests\ttime\trows\trows/s\tsent\treceived\tserver rows r/w\t\n"
	printBenchTable(app, title, header, lines, netRow)
}

// netRow is the table line of one network measurement.
func netRow(l netJSON) string {
	rows, rate := "-", "-"
	if l.Rows > 0 {
		rows = fmt.Sprint(l.Rows)
	}
	if l.RowsPerSec > 0 && !strings.HasPrefix(l.Op, "tui:") {
		rate = fmt.Sprintf("%.0f", l.RowsPerSec)
	}
	return fmt.Sprintf("%s\t%d\t%s\t%s\t%s\t%s\t%s\t%d/%d\t\n", l.Op, l.Requests, time.Duration(l.Ms*float64(time.Millisecond)).Round(time.Millisecond), rows, rate,
		usertext.BytesText(l.BytesSent), usertext.BytesText(l.BytesReceived), l.ServerRead, l.ServerWritten)
}
