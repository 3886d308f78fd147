package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/race"
	"kvdeck/store"
)

// RaceCmd runs the CAS race headless: the live mode of the TUI's Race tab.
type RaceCmd struct {
	Key        string `arg:"" name:"key" help:"The counter's key: its value is {\"n\": <integer>} (absent = 0), so other clients can race it too."`
	Workers    int    `name:"workers" placeholder:"N" default:"4" help:"Workers racing, each with its own connections (1-256)."`
	Increments int    `name:"increments" placeholder:"M" default:"25" help:"Successful increments per worker."`
	Naive      bool   `name:"naive" help:"Drop the check (read, then a blind set) to show lost updates."`
	Lockstep   bool   `name:"lockstep" help:"Every worker reads, waits for the others, then writes: the worst interleaving, every round."`
}

// raceJSON is the result line of race.
type raceJSON struct {
	Key           codec.Key          `json:"key"`
	Mode          string             `json:"mode"`
	Lockstep      bool               `json:"lockstep"`
	Workers       int                `json:"workers"`
	Increments    int                `json:"increments"`
	Attempts      int64              `json:"attempts"`
	Successes     int64              `json:"successes"`
	Conflicts     int64              `json:"conflicts"`
	ConflictRate  float64            `json:"conflictRate"`
	Start         int64              `json:"start"`
	Final         int64              `json:"final"`
	Expected      int64              `json:"expected"`
	LostUpdates   int64              `json:"lostUpdates"`
	OtherWrites   int64              `json:"otherWrites"`
	Unknown       int64              `json:"unknown"`
	UnknownLanded int64              `json:"unknownApplied"`
	ElapsedMs     int64              `json:"elapsedMs"`
	PerWorker     []race.WorkerStats `json:"perWorker"`
}

// Writes names the write for the read-only refusal (writer).
func (c *RaceCmd) Writes() string { return "race" }

// Run races the workers and prints the figures. Exit 0 when the counter
// ends where the successes put it; with the check, a lost update is a bug
// in the store and exits 1; in naive mode lost updates are the point and
// exit 0. A key that does not hold a counter exits 2 with nothing written.
func (c *RaceCmd) Run(app *App) error {
	key, err := ParseKey("KEY", c.Key)
	if err != nil {
		return err
	}
	if c.Workers < 1 || c.Workers > race.MaxWorkers {
		return fmt.Errorf("--workers %d: want 1 to %d", c.Workers, race.MaxWorkers)
	}
	if c.Increments < 1 {
		return fmt.Errorf("--increments %d: want at least 1", c.Increments)
	}
	// Create the store (and say so) once, before the workers open it.
	if _, err := app.Open(app.Context(), Opening{Write: true, Create: MayCreate}); err != nil {
		return err
	}
	res, err := race.Run(app.Context(), race.Config{
		// Each worker its own store, closed by the race: separate
		// clients, not journaled (the race is a workload).
		Open:       func(ctx context.Context) (*store.Store, error) { return app.Open(ctx, Opening{Own: true}) },
		Key:        key,
		Workers:    c.Workers,
		Increments: c.Increments,
		Naive:      c.Naive,
		Lockstep:   c.Lockstep,
	})
	if err == nil || res.Attempts > 0 {
		// An interrupted or failed race still reports how far it got.
		out := newRaceJSON(res)
		app.Out.Result(out, raceText(out))
	}
	switch {
	case err != nil:
		return err
	case res.LostUpdates > 0 && !c.Naive:
		return NotDone("race: %d updates lost although every commit checked its stamp: the store is broken", res.LostUpdates)
	}
	return nil
}

func newRaceJSON(r race.Result) raceJSON {
	mode := "check"
	if r.Config.Naive {
		mode = "naive"
	}
	return raceJSON{
		Key: r.Config.Key, Mode: mode, Lockstep: r.Config.Lockstep, Workers: r.Config.Workers, Increments: r.Config.Increments,
		Attempts: r.Attempts, Successes: r.Successes, Conflicts: r.Conflicts, ConflictRate: r.ConflictRate(),
		Start: r.Start, Final: r.Final, Expected: r.Expected, LostUpdates: r.LostUpdates, OtherWrites: r.OtherWrites,
		Unknown: r.Unknown, UnknownLanded: r.UnknownApplied,
		ElapsedMs: r.Elapsed.Milliseconds(), PerWorker: r.Workers,
	}
}

// raceText is the report for people:
//
//	race ["counter"]: 4 workers x 25 increments, read / check / set / retry
//	attempts      137
//	successes     100
//	conflicts     37 (27.0% of attempts)
//	final value   100
//	expected      100 (start 0 + 100 successes)
//	lost updates  0
//	elapsed       412ms (243 increments/s)
//	worker 1      attempts 34, successes 25, conflicts 9
func raceText(r raceJSON) string {
	var b strings.Builder
	how := "read / check / set / retry"
	if r.Mode == "naive" {
		how = "naive: read / set, no check"
	}
	if r.Lockstep {
		how += ", lockstep"
	}
	fmt.Fprintf(&b, "race %s: %d workers x %d increments, %s\n", codec.Format(r.Key), r.Workers, r.Increments, how)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "attempts\t%d\nsuccesses\t%d\n", r.Attempts, r.Successes)
	fmt.Fprintf(tw, "conflicts\t%d (%.1f%% of attempts)\n", r.Conflicts, 100*r.ConflictRate)
	fmt.Fprintf(tw, "final value\t%d\nexpected\t%d (start %d + %d successes)\n", r.Final, r.Expected, r.Start, r.Successes)
	lost := ""
	if r.LostUpdates > 0 && r.Mode == "naive" {
		lost = " (sets computed from stale reads overwrote other increments)"
	}
	fmt.Fprintf(tw, "lost updates\t%d%s\n", r.LostUpdates, lost)
	if r.Unknown > 0 {
		fmt.Fprintf(tw, "unknown\t%d (commits whose answer was lost; the final value shows %d of them applied)\n", r.Unknown, r.UnknownLanded)
	}
	if r.OtherWrites > 0 {
		fmt.Fprintf(tw, "other writes\t%d (increments by other clients during the race)\n", r.OtherWrites)
	}
	elapsed := time.Duration(r.ElapsedMs) * time.Millisecond
	rate := ""
	if r.ElapsedMs > 0 {
		rate = fmt.Sprintf(" (%.0f increments/s)", float64(r.Successes)/elapsed.Seconds())
	}
	fmt.Fprintf(tw, "elapsed\t%s%s\n", elapsed, rate)
	for i, w := range r.PerWorker {
		fmt.Fprintf(tw, "worker %d\tattempts %d, successes %d, conflicts %d\n", i+1, w.Attempts, w.Successes, w.Conflicts)
	}
	_ = tw.Flush()
	return strings.TrimRight(b.String(), "\n")
}
