package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"kvdeck/internal/demo"
	"kvdeck/store"
)

// DemoDB is the database kvdeck demo uses without --db. The environment
// variables that name a database elsewhere are ignored on purpose: the demo
// must never seed fake state into a real store by accident.
const DemoDB = "file:kvdeck-demo.db"

// DemoCmd seeds (or reuses) a demo store, runs the replica simulation on
// it and shows it in the TUI, or only runs the simulation (--headless).
type DemoCmd struct {
	Headless bool          `name:"headless" help:"Run only the simulation, no TUI, and print a summary."`
	Duration time.Duration `name:"duration" placeholder:"DURATION" help:"Stop the simulation after this long; 0 runs it until the TUI quits (or Ctrl-C when headless)."`
	Seed     int64         `name:"seed" placeholder:"N" help:"Random seed of the seeded state and the replicas; 0 picks one and prints it."`
	Replicas int           `name:"replicas" placeholder:"N" default:"3" help:"Simulated replicas, each with its own connection (1-16)."`
	Tick     time.Duration `name:"tick" placeholder:"DURATION" default:"1s" help:"How often each replica starts a poll (plus up to a fifth at random)."`
	Refresh  time.Duration `name:"refresh" placeholder:"DURATION" default:"1s" help:"Live refresh interval of the TUI."`
}

// demoJSON is the result line of demo.
type demoJSON struct {
	DB     string          `json:"db"`
	Seeded demo.SeedReport `json:"seeded"`
	demo.Summary
}

// Writes names the write for the read-only refusal (writer).
func (c *DemoCmd) Writes() string { return "demo" }

// Run seeds the store and runs the simulation. Headless, it prints the
// summary when the duration has passed or on Ctrl-C (exit 0 when no
// duration was given, 130 when it was cut short); with the TUI, quitting
// it stops the simulation, waits for every replica and prints the summary.
// Store errors during the simulation exit 2.
func (c *DemoCmd) Run(app *App) error {
	if err := c.check(); err != nil {
		return err
	}
	url, seed := c.target(app)
	token := app.globalTokenFor(url)
	s, err := app.Open(app.Context(), Opening{URL: url, Token: token, Write: true, Create: MayCreate})
	if err != nil {
		return err
	}
	rep, err := seedDemo(app, s, url, seed)
	if err != nil {
		return err
	}
	cfg := demo.SimConfig{
		// Each replica its own store, closed by Simulate: separate
		// clients, not journaled (the demo's workload).
		Open: func(ctx context.Context) (*store.Store, error) {
			return app.Open(ctx, Opening{URL: url, Token: token, Own: true})
		},
		Replicas: c.Replicas, Tick: c.Tick, Duration: c.Duration, Seed: seed,
		Progress: app.demoProgress,
	}
	var sum demo.Summary
	if c.Headless {
		sum, err = demo.Simulate(app.Context(), cfg)
	} else {
		sum, err = c.withTUI(app, s, cfg)
	}
	if err != nil {
		return err
	}
	out := demoJSON{DB: url, Seeded: rep, Summary: sum}
	app.Out.Result(out, demoText(out))
	return c.verdict(app, sum)
}

// target is the store the demo runs on (--db, --store, else DemoDB in
// the current directory) and its seed (--seed, else a random one): both
// said on stderr when chosen for the user, as is a frozen clock.
func (c *DemoCmd) target(app *App) (url string, seed int64) {
	url = app.Globals.DB
	if app.Globals.saved != nil { // --store, only the flag (stores.go)
		url = app.Globals.saved.url
	}
	if url == "" {
		url = DemoDB
		fmt.Fprintf(app.Stderr, "kvdeck: demo store %s in the current directory (--db chooses another)\n", url)
	}
	if app.Globals.Now != "" {
		app.Warnf("the clock is frozen by --now: leases, TTL rows, alarms and delayed messages will not come due")
	}
	seed = c.Seed
	if seed == 0 {
		seed = time.Now().UnixNano()%999_999 + 1
		fmt.Fprintf(app.Stderr, "kvdeck: demo seed %d (--seed %d repeats this run)\n", seed, seed)
	}
	return url, seed
}

// seedDemo seeds s (at url) with seed, or reuses what an earlier seed
// left, and says which on stderr. The seed is the demo's workload, like
// its replicas: not journaled. What the user does in the demo's TUI is.
func seedDemo(app *App, s *store.Store, url string, seed int64) (demo.SeedReport, error) {
	rec := s.Recorder()
	s.SetRecorder(nil)
	rep, err := demo.Seed(app.Context(), s, seed, app.Now())
	s.SetRecorder(rec)
	if err != nil {
		return rep, fmt.Errorf("seed %s: %w", url, err)
	}
	if rep.Reused {
		fmt.Fprintf(app.Stderr, "kvdeck: reusing the demo store seeded %s with seed %d\n", timeText(rep.SeededAt), rep.Seed)
	} else {
		fmt.Fprintf(app.Stderr, "kvdeck: seeded %d rows: %d leases, %d alarms, %d messages, %d cron rows, %d expired rows not swept\n",
			rep.Rows, rep.Leases, rep.Alarms, rep.Messages, rep.CronRows, rep.Expired)
	}
	return rep, nil
}

// check validates what kong's tags cannot express.
func (c *DemoCmd) check() error {
	switch {
	case c.Replicas < 1 || c.Replicas > demo.MaxReplicas:
		return fmt.Errorf("--replicas %d: want 1 to %d", c.Replicas, demo.MaxReplicas)
	case c.Tick < time.Millisecond:
		return fmt.Errorf("--tick %s: want at least 1ms", c.Tick)
	case c.Duration < 0:
		return fmt.Errorf("--duration %s: must not be negative", c.Duration)
	case c.Refresh <= 0:
		return fmt.Errorf("--refresh %s: must be positive", c.Refresh)
	}
	return nil
}

// withTUI runs the simulation in the background while the TUI shows s;
// quitting the TUI cancels the simulation and waits for it.
func (c *DemoCmd) withTUI(app *App, s *store.Store, cfg demo.SimConfig) (demo.Summary, error) {
	ctx, cancel := context.WithCancel(app.Context())
	defer cancel()
	type result struct {
		sum demo.Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := demo.Simulate(ctx, cfg)
		done <- result{sum, err}
	}()
	tuiErr := app.RunTUI(s, c.Refresh)
	cancel()
	res := <-done
	return res.sum, errors.Join(tuiErr, res.err)
}

// verdict is the exit status after the summary: store errors exit 2 with
// the first few on stderr; an interrupt before the duration ended exits
// 130; otherwise 0.
func (c *DemoCmd) verdict(app *App, sum demo.Summary) error {
	if sum.Errors > 0 {
		return fmt.Errorf("the simulation hit %d store error(s); first: %s", sum.Errors, strings.Join(sum.ErrorSample, "; "))
	}
	if c.Headless && c.Duration > 0 && app.Context().Err() != nil {
		return fmt.Errorf("demo stopped after %s of %s: %w", time.Duration(sum.ElapsedMs)*time.Millisecond, c.Duration, app.Context().Err())
	}
	return nil
}

// demoText is the summary for people:
//
//	demo on file:kvdeck-demo.db: 3 replicas for 5.002s, seed 1 (seeded 212 rows)
//	leases    acquired 42  released 40  contended 12  gave up (503) 3  abandoned 1
//	alarms    scheduled 30  fired 25  retried 6  dropped 1  ...
func demoText(d demoJSON) string {
	var b strings.Builder
	how := fmt.Sprintf("seeded %d rows", d.Seeded.Rows)
	if d.Seeded.Reused {
		how = fmt.Sprintf("reused, seeded %s with seed %d", timeText(d.Seeded.SeededAt), d.Seeded.Seed)
	}
	fmt.Fprintf(&b, "demo on %s: %d replicas for %s, seed %d (%s)\n", d.DB, d.Replicas, time.Duration(d.ElapsedMs)*time.Millisecond, d.Seed, how)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "polls\t%d\n", d.Polls)
	fmt.Fprintf(tw, "leases\tacquired %d  released %d  contended %d  gave up (503) %d  abandoned %d\n",
		d.LeasesAcquired, d.LeasesReleased, d.LeasesContended, d.LeaseTimeouts, d.LeasesAbandoned)
	fmt.Fprintf(tw, "alarms\tscheduled %d  fired %d  retried %d  dropped %d  re-posted %d  superseded %d  claimed elsewhere %d\n",
		d.AlarmsScheduled, d.AlarmsFired, d.AlarmsRetried, d.AlarmsDropped, d.AlarmsReposted, d.AlarmsSuperseded, d.AlarmsLost)
	fmt.Fprintf(tw, "messages\tsent %d  delivered %d  redelivered %d  acked %d  requeued %d  dropped %d\n",
		d.MessagesSent, d.MessagesDelivered, d.MessagesRedelivered, d.MessagesAcked, d.MessagesRequeued, d.MessagesDropped)
	fmt.Fprintf(tw, "cron\tclaims %d  ticks won %d\n", d.CronClaims, d.CronTicksWon)
	fmt.Fprintf(tw, "rows\tswept %d  TTL writes %d\n", d.RowsSwept, d.TTLWrites)
	fmt.Fprintf(tw, "cas\tcommits %d  conflicts %d\n", d.CASCommits, d.CASConflicts)
	fmt.Fprintf(tw, "errors\t%d\n", d.Errors)
	_ = tw.Flush()
	return strings.TrimRight(b.String(), "\n")
}
