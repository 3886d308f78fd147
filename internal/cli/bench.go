package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"kvdeck/internal/bench"
	"kvdeck/internal/journal"
)

// BenchCmd measures the engine: each operation
// beside its raw-SQL baseline on the same driver, measured in the same run.
type BenchCmd struct {
	Ops    int    `name:"ops" placeholder:"N" default:"2000" help:"Calls of each point operation (set, get, check+set) on each side."`
	Keys   int    `name:"keys" placeholder:"N" default:"100000" help:"Rows that list and sweep work on (embedded)."`
	Rounds int    `name:"rounds" placeholder:"N" default:"3" help:"Calls of list, sweep and census on each side; each side is measured by its fastest call."`
	Remote string `name:"remote" placeholder:"URL" help:"Also measure against this server (sqld, Turso); rows are written under [\"kvdeck_bench\", <run>] and removed afterwards."`
	// RemoteKeys is smaller by default: a server is reached over the network.
	RemoteKeys int `name:"remote-keys" placeholder:"N" default:"2000" help:"Rows that list and sweep work on (remote)."`
	// The network section: what each command and screen costs over a link.
	Latency     time.Duration `name:"latency" placeholder:"DURATION" help:"With --remote: add this delay to every request of the network section (a proxy in front of the server), e.g. 50ms."`
	LoadRows    int           `name:"load-rows" placeholder:"N" default:"20000" help:"Rows the network section's load writes (removed afterwards)."`
	NetworkOnly bool          `name:"network-only" help:"With --remote: measure only the network section (requests and time of each command and TUI screen)."`
}

// benchJSON is one line of bench's JSON output.
type benchJSON struct {
	Target          string  `json:"target"`
	Op              string  `json:"op"`
	Baseline        string  `json:"baseline"`
	Calls           int     `json:"calls"`
	Rows            int     `json:"rows"`
	EngineOpsPerSec float64 `json:"engineOpsPerSec"`
	RawOpsPerSec    float64 `json:"rawOpsPerSec"`
	Ratio           float64 `json:"ratio"`
	FloorOpsPerSec  float64 `json:"floorOpsPerSec,omitempty"`
	FloorRatio      float64 `json:"floorRatio,omitempty"`
	Goal            float64 `json:"goal,omitempty"`
	RoundTrips      float64 `json:"roundTrips"`
	// LongestTxMs is, for sweep, the engine's longest delete transaction
	// (store.SweepResult.LongestTx): what a live writer may wait.
	LongestTxMs float64 `json:"longestTxMs,omitempty"`
}

// goal is the time the engine may take for op on an embedded file, as a
// share of its raw-SQL baseline's (engine / raw); 0 when none is set.
func goal(op string) float64 {
	switch op {
	case "set":
		return 0.70
	case "get":
		return 0.50
	case "sweep": // issue 20 point 6
		return 0.50
	}
	return 0
}

// Run measures an embedded file in a temporary folder, then the remote
// server when --remote is given, and prints a table (or JSON lines).
func (c *BenchCmd) Run(app *App) error {
	if c.Ops < 1 || c.Keys < 1 || c.Rounds < 1 || c.RemoteKeys < 1 || c.LoadRows < 1 {
		return fmt.Errorf("--ops, --keys, --rounds, --remote-keys and --load-rows must be at least 1")
	}
	if c.Latency < 0 {
		return fmt.Errorf("--latency %v: must not be negative", c.Latency)
	}
	if c.NetworkOnly && c.Remote == "" {
		return fmt.Errorf("--network-only needs --remote URL")
	}
	if c.NetworkOnly {
		return c.runRemote(app)
	}
	dir, err := os.MkdirTemp("", "kvdeck-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	env, err := bench.NewEnv(app.Context(), dir)
	if err != nil {
		return err
	}
	// The journaled sweep, as `kvdeck sweep` runs, journals into the
	// temporary folder.
	if env.SweepRecorder, err = journal.Open(env.Store.Info().Display, journal.Options{Dir: dir}); err != nil {
		env.Close()
		return err
	}
	lines, err := c.measure(app, env, "embedded", c.Keys)
	env.Close()
	if err != nil {
		return err
	}
	c.print(app, "embedded file (WAL, synchronous=FULL, same driver and DSN for both sides)", lines)
	if c.Remote == "" {
		return nil
	}
	return c.runRemote(app)
}

// runRemote measures the server: the engine beside raw SQL (unless
// --network-only), then the network section behind the latency proxy.
func (c *BenchCmd) runRemote(app *App) error {
	if err := app.Writable("bench --remote"); err != nil {
		return err
	}
	renv, err := bench.NewRemoteEnv(app.Context(), c.Remote, app.Globals.ResolveToken(app.Env))
	if err != nil {
		return err
	}
	defer renv.Close()
	defer func() {
		if cerr := renv.Cleanup(context.WithoutCancel(app.Context())); cerr != nil {
			app.Warnf("could not remove the benchmark rows: %v", cerr)
		}
	}()
	if !c.NetworkOnly {
		lines, err := c.measure(app, renv, "remote", c.RemoteKeys)
		if err != nil {
			return err
		}
		c.print(app, "remote "+renv.Store.Info().Display+" (round trips = requests per call)", lines)
	}
	net, err := c.network(app, renv)
	if err != nil {
		return err
	}
	c.printNetwork(app, fmt.Sprintf("over the network: %s behind a proxy adding %v per request (commands include opening; tui lines are the store reads of that screen, after open)", renv.Store.Info().Display, c.Latency), net)
	return nil
}

func (c *BenchCmd) measure(app *App, env *bench.Env, target string, rows int) ([]benchJSON, error) {
	var out []benchJSON
	for _, op := range env.Ops(rows, rows) {
		calls := c.Ops
		if op.Rows > 1 {
			calls = c.Rounds
		}
		engine, raw, floor, err := env.Measure(app.Context(), op, calls)
		if err != nil {
			return nil, err
		}
		longest := env.TakeLongestSweepTx()
		line := benchJSON{
			Target: target, Op: op.Name, Baseline: op.Baseline, Calls: calls, Rows: op.Rows,
			EngineOpsPerSec: engine.PerSecond(), RawOpsPerSec: raw.PerSecond(), RoundTrips: engine.RoundTrips,
		}
		if line.RawOpsPerSec > 0 {
			line.Ratio = line.EngineOpsPerSec / line.RawOpsPerSec
		}
		if line.FloorOpsPerSec = floor.PerSecond(); line.FloorOpsPerSec > 0 {
			line.FloorRatio = line.EngineOpsPerSec / line.FloorOpsPerSec
		}
		if target == "embedded" {
			line.Goal = goal(op.Name)
		}
		if strings.HasPrefix(op.Name, "sweep") {
			line.LongestTxMs = float64(longest.Microseconds()) / 1000
		}
		out = append(out, line)
	}
	return out, nil
}

func (c *BenchCmd) print(app *App, title string, lines []benchJSON) {
	header := "op\tcalls\tengine/s\traw/s\tratio\tgoal\tfloor/s\tvs floor\ttrips/call\t\n"
	if !printBenchTable(app, title, header, lines, benchRow) {
		return
	}
	for _, l := range lines {
		app.Out.Textf("  %-10s raw side: %s", l.Op, l.Baseline)
		if l.LongestTxMs > 0 {
			app.Out.Textf("  %-10s longest delete transaction of the engine: %.1f ms", l.Op, l.LongestTxMs)
		}
	}
}

// printBenchTable prints lines as JSON objects, or under title as a
// right-aligned table of header's columns, row(l) a line; it reports
// whether it printed text.
func printBenchTable[L any](app *App, title, header string, lines []L, row func(L) string) bool {
	if app.Out.JSON() {
		for _, l := range lines {
			app.Out.Object(l)
		}
		return false
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, header)
	for _, l := range lines {
		fmt.Fprint(tw, row(l))
	}
	tw.Flush()
	app.Out.Textf("%s", title)
	app.Out.Textf("%s", strings.TrimRight(b.String(), "\n"))
	return true
}

// benchRow is the table line of one engine measurement.
func benchRow(l benchJSON) string {
	unit := ""
	if l.Rows > 1 {
		unit = fmt.Sprintf(" ×%d rows", l.Rows)
	}
	goal := "-"
	if l.Goal > 0 {
		goal = fmt.Sprintf("≥%.0f%%", l.Goal*100)
	}
	floor, vsFloor := "-", "-"
	if l.FloorOpsPerSec > 0 {
		floor, vsFloor = fmt.Sprintf("%.0f", l.FloorOpsPerSec), fmt.Sprintf("%.0f%%", l.FloorRatio*100)
	}
	return fmt.Sprintf("%s\t%d%s\t%.0f\t%.0f\t%.0f%%\t%s\t%s\t%s\t%.1f\t\n", l.Op, l.Calls, unit, l.EngineOpsPerSec, l.RawOpsPerSec, l.Ratio*100, goal, floor, vsFloor, l.RoundTrips)
}
