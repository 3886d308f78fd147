package cli

import (
	"fmt"
	"strings"
	"time"

	"kvdeck/store"
)

// SweepCmd deletes expired rows.
type SweepCmd struct {
	DryRun bool   `name:"dry-run" help:"Print the rows that would go and count them; delete nothing."`
	Prefix string `name:"prefix" placeholder:"KEY" help:"Only rows under this key prefix (default: every row, undecodable ones included)."`
	Batch  int    `name:"batch" placeholder:"N" help:"Expired rows per delete transaction (default 1000 on a file, 5000 on a server)."`
	// IncludeLive is the explicit yes the guard asks for.
	IncludeLive bool `name:"include-live" help:"Under a clock ahead of the real one (--now in the future, a positive --clock-offset), also sweep the rows the real clock still sees live (a lease its holder still holds). Without it they are kept, counted, and the sweep exits 1."`
}

// sweepJSON is the receipt of a sweep.
type sweepJSON struct {
	Swept      int64  `json:"swept"`
	Remaining  int64  `json:"remaining"`
	ElapsedMs  int64  `json:"elapsedMs"`
	Batches    int    `json:"batches"`
	NextExpiry *int64 `json:"nextExpiry"`
	DryRun     bool   `json:"dryRun"`
	// LiveByReal counts the rows expired at the clock's now but live by the
	// real clock (only under a clock ahead of it): kept, or with
	// --include-live swept with the rest.
	LiveByReal int64 `json:"liveByReal,omitempty"`
	// IncludeLive echoes the flag when there were such rows.
	IncludeLive bool `json:"includeLive,omitempty"`
}

// Writes names the write for the read-only refusal (writer); a dry run
// only reads.
func (c *SweepCmd) Writes() string {
	if c.DryRun {
		return ""
	}
	return "sweep"
}

// Run sweeps in batches (store.Sweep) at the virtual now and prints the
// receipt; a dry run first prints each row that would go.
func (c *SweepCmd) Run(app *App) error {
	prefix, err := ParseOptionalKey("--prefix", c.Prefix)
	if err != nil {
		return err
	}
	if c.Batch < 0 {
		return fmt.Errorf("--batch %d: must be positive", c.Batch)
	}
	s, err := app.Open(app.Context(), Opening{Write: !c.DryRun, Create: MustExist})
	if err != nil {
		return err
	}
	// The guard: under a clock ahead of the real one, what the real clock
	// still sees live stays unless --include-live (store.SweepOptions).
	now, real := app.Now(), store.SystemClock()
	opts := store.SweepOptions{Now: now, RealNow: real, IncludeLive: c.IncludeLive, Prefix: prefix, Batch: c.Batch, DryRun: c.DryRun}
	if c.DryRun {
		// Each row that would go, then the receipt: the same reads find
		// both (the guard's cut decides which rows).
		opts.Each = func(e store.Entry) error {
			app.Out.Entry(e, now, true)
			return nil
		}
	}
	res, err := s.Sweep(app.Context(), opts)
	if err != nil && c.DryRun {
		return err
	}
	out := sweepJSON{Swept: res.Swept, Remaining: res.Remaining, ElapsedMs: res.Elapsed.Milliseconds(),
		Batches: res.Batches, NextExpiry: res.NextExpiry, DryRun: res.DryRun, LiveByReal: res.LiveByReal,
		IncludeLive: c.IncludeLive && res.LiveByReal > 0}
	app.Out.Result(out, sweepText(out))
	if err == nil && !c.DryRun && !c.IncludeLive && res.LiveByReal > 0 {
		return NotDone("kept %s that the real clock still sees live (the clock is %s ahead of it): sweeping them ends leases their holders still hold; --include-live sweeps them too",
			plural(res.LiveByReal, "row"), (time.Duration(now-real) * time.Millisecond).Round(time.Second))
	}
	return err
}

// sweepText is the receipt for people.
func sweepText(r sweepJSON) string {
	var b strings.Builder
	if r.DryRun {
		fmt.Fprintf(&b, "would sweep %s (dry run)", plural(r.Swept, "row"))
	} else {
		fmt.Fprintf(&b, "swept %s in %s (%dms); %s remain", plural(r.Swept, "row"), plural(int64(r.Batches), "batch"), r.ElapsedMs, plural(r.Remaining, "expired row"))
	}
	switch {
	case r.LiveByReal == 0:
	case r.IncludeLive:
		fmt.Fprintf(&b, "; %d of them live by the real clock", r.LiveByReal)
	case r.LiveByReal == 1:
		b.WriteString("; 1 more row is expired at the clock's now but live by the real clock (kept; --include-live sweeps it)")
	default:
		fmt.Fprintf(&b, "; %d more rows are expired at the clock's now but live by the real clock (kept; --include-live sweeps them)", r.LiveByReal)
	}
	if r.NextExpiry != nil {
		b.WriteString("; next expiry " + timeText(*r.NextExpiry))
	} else {
		b.WriteString("; no row expires later")
	}
	return b.String()
}

// plural formats a count with its noun: "1 row", "3 rows", "2 batches".
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "ch") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
