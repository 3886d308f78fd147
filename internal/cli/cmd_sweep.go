package cli

import (
	"fmt"
	"strings"

	"kvdeck/internal/usertext"
	"kvdeck/store"
)

// SweepCmd deletes expired rows.
type SweepCmd struct {
	DryRun bool   `name:"dry-run" help:"Print the rows that would go and count them; delete nothing."`
	Prefix string `name:"prefix" placeholder:"KEY" help:"Only rows under this key prefix (default: every row, undecodable ones included)."`
	Batch  int    `name:"batch" placeholder:"N" help:"Rows per delete transaction (default 1000)."`
}

// sweepJSON is the receipt of a sweep.
type sweepJSON struct {
	Swept      int64  `json:"swept"`
	Remaining  int64  `json:"remaining"`
	ElapsedMs  int64  `json:"elapsedMs"`
	Batches    int    `json:"batches"`
	NextExpiry *int64 `json:"nextExpiry"`
	DryRun     bool   `json:"dryRun"`
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
	if !c.DryRun {
		if err := app.Writable("sweep"); err != nil {
			return err
		}
	}
	s, err := app.Open()
	if err != nil {
		return err
	}
	now := app.Now()
	if c.DryRun {
		err := s.ScanExpired(app.Context(), prefix, now, 0, func(e store.Entry) error {
			app.Out.Entry(e, now, true)
			return nil
		})
		if err != nil {
			return err
		}
	}
	res, err := s.Sweep(app.Context(), store.SweepOptions{Now: now, Prefix: prefix, Batch: c.Batch, DryRun: c.DryRun})
	out := sweepJSON{Swept: res.Swept, Remaining: res.Remaining, ElapsedMs: res.Elapsed.Milliseconds(),
		Batches: res.Batches, NextExpiry: res.NextExpiry, DryRun: res.DryRun}
	app.Out.Result(out, sweepText(out))
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
	if r.NextExpiry != nil {
		b.WriteString("; next expiry " + usertext.FormatTime(*r.NextExpiry))
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
