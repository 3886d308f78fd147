package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// LeaseCmd groups the lease library (store/coord).
type LeaseCmd struct {
	List    LeaseListCmd    `cmd:"" help:"List every lease and cron tick-lease: holder, fencing versionstamp, time left, state, age."`
	Acquire LeaseAcquireCmd `cmd:"" help:"Take the lease at KEY like a replica (check absent + set with a TTL, retrying until --timeout); exit 1 when contended."`
	Release LeaseReleaseCmd `cmd:"" help:"Give back the lease at KEY taken at VERSIONSTAMP; exit 1 when someone else holds it now."`
	Break   LeaseBreakCmd   `cmd:"" help:"Delete the lease at KEY, guarded by its current versionstamp (or --stamp); exit 1 when it changed or is gone."`
}

// leaseRowJSON is one line of lease list.
type leaseRowJSON struct {
	Key          codec.Key `json:"key"`
	Kind         string    `json:"kind"`
	Name         string    `json:"name"`
	ID           *string   `json:"id,omitempty"`
	Bucket       *int64    `json:"bucket,omitempty"`
	Holder       string    `json:"holder"`
	Versionstamp string    `json:"versionstamp"`
	ExpiresAt    *int64    `json:"expiresAt"`
	TimeLeftMs   *int64    `json:"timeLeftMs"`
	TTLMs        *int64    `json:"ttlMs"`
	AgeMs        *int64    `json:"ageMs"`
	State        string    `json:"state"`
	Problem      string    `json:"problem,omitempty"`
}

// LeaseListCmd lists leases and cron rows.
type LeaseListCmd struct{}

// Run prints one line per lease and cron tick row, expired ones included.
func (c *LeaseListCmd) Run(app *App) error {
	s, err := app.Open(app.Context(), Opening{})
	if err != nil {
		return err
	}
	rows, _, err := coord.InspectLeases(app.Context(), s, app.Now())
	if err != nil {
		return err
	}
	for _, r := range rows {
		app.Out.Result(leaseRow(r), leaseText(r))
	}
	if len(rows) == 0 && !app.Out.JSON() {
		app.Out.Textf("no leases")
	}
	return nil
}

func leaseRow(r coord.LeaseRow) leaseRowJSON {
	j := leaseRowJSON{Key: r.Key, Kind: r.Kind, Name: r.Name, Holder: r.Holder, Versionstamp: r.Versionstamp,
		ExpiresAt: r.ExpiresAt, State: string(r.State), Problem: r.Problem}
	if r.Kind == coord.KindLease {
		j.ID = &r.ID
	} else {
		j.Bucket = &r.Bucket
	}
	if r.ExpiresAt != nil {
		j.TimeLeftMs = &r.TimeLeftMs
	}
	if r.TTLMs > 0 {
		j.TTLMs, j.AgeMs = &r.TTLMs, &r.AgeMs
	}
	return j
}

// leaseText is `KEY  STATE  holder=H  v=STAMP  left=30s  age=0s  expires=TIME`.
func leaseText(r coord.LeaseRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s  holder=%s  v=%s", codec.Format(r.Key), r.State, usertext.Sanitize(r.Holder), r.Versionstamp)
	if r.ExpiresAt == nil {
		b.WriteString("  no expiry")
	} else {
		fmt.Fprintf(&b, "  left=%s", millis(r.TimeLeftMs))
		if r.TTLMs > 0 {
			fmt.Fprintf(&b, "  age=%s", millis(r.AgeMs))
		}
		b.WriteString("  expires=" + timeText(*r.ExpiresAt))
	}
	if r.Problem != "" {
		b.WriteString("  problem: " + usertext.Sanitize(r.Problem))
	}
	return b.String()
}

// millis prints milliseconds as a Go duration ("1m30s").
func millis(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() }

// leaseJSON is the result line of acquire, release and break.
type leaseJSON struct {
	Key          codec.Key `json:"key"`
	Holder       string    `json:"holder,omitempty"`
	Versionstamp string    `json:"versionstamp"`
	ExpiresAt    *int64    `json:"expiresAt,omitempty"`
	Released     *bool     `json:"released,omitempty"`
	Broken       *bool     `json:"broken,omitempty"`
}

// LeaseAcquireCmd takes a lease.
type LeaseAcquireCmd struct {
	Key     string `arg:"" name:"key" help:"The lease key, e.g. '[\"dwk_lease\", \"Cart\", \"0e58...\"]'."`
	TTL     string `name:"ttl" placeholder:"DURATION" default:"30s" help:"Lifetime of the lease (there is no renewal)."`
	Timeout string `name:"timeout" placeholder:"DURATION" default:"5s" help:"How long to retry while someone else holds it (0: one attempt)."`
}

// Writes names the write for the read-only refusal (writer).
func (c *LeaseAcquireCmd) Writes() string { return "lease acquire" }

// Run acquires and prints the lease; exit 1 when it stayed contended.
func (c *LeaseAcquireCmd) Run(app *App) error {
	key, err := ParseKey("KEY", c.Key)
	if err != nil {
		return err
	}
	ttl, err := positiveDuration("--ttl", c.TTL, false)
	if err != nil {
		return err
	}
	timeout, err := leaseWait("--timeout", c.Timeout)
	if err != nil {
		return err
	}
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MayCreate})
	if err != nil {
		return err
	}
	l, err := coord.AcquireKey(app.Context(), s, key, coord.LeaseOptions{TTL: ttl, Timeout: timeout})
	if errors.Is(err, coord.ErrLeaseContended) {
		return NotDone("%v", err)
	}
	if err != nil {
		return err
	}
	app.Out.Result(leaseJSON{Key: l.Key, Holder: l.Holder, Versionstamp: l.Versionstamp, ExpiresAt: &l.ExpiresAt},
		fmt.Sprintf("acquired %s  holder=%s  v=%s  expires=%s", codec.Format(l.Key), l.Holder, l.Versionstamp, timeText(l.ExpiresAt)))
	return nil
}

// LeaseReleaseCmd gives a lease back.
type LeaseReleaseCmd struct {
	Key          string `arg:"" name:"key" help:"The lease key."`
	Versionstamp string `arg:"" name:"versionstamp" help:"The versionstamp printed by acquire."`
}

// Writes names the write for the read-only refusal (writer).
func (c *LeaseReleaseCmd) Writes() string { return "lease release" }

// Run releases; exit 1 when the lease is no longer at that versionstamp.
func (c *LeaseReleaseCmd) Run(app *App) error {
	key, err := ParseKey("KEY", c.Key)
	if err != nil {
		return err
	}
	stamp, err := parseStamp("VERSIONSTAMP", c.Versionstamp)
	if err != nil {
		return err
	}
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MustExist})
	if err != nil {
		return err
	}
	ok, err := coord.Release(app.Context(), s, coord.Lease{Key: key, Versionstamp: stamp})
	if err != nil {
		return err
	}
	return leaseVerdict(app, leaseJSON{Key: key, Versionstamp: stamp, Released: &ok}, ok, "released",
		": it lapsed and someone else holds it, or it is gone")
}

// LeaseBreakCmd deletes a lease, CAS-guarded.
type LeaseBreakCmd struct {
	Key   string `arg:"" name:"key" help:"The lease key."`
	Stamp string `name:"stamp" placeholder:"VERSIONSTAMP" help:"Break only if the lease is still at this versionstamp (the one you saw); default: its current one. 00000000000000000000, shown for a row whose ver is no stamp (another writer's), breaks it while it has none."`
}

// Writes names the write for the read-only refusal (writer).
func (c *LeaseBreakCmd) Writes() string { return "lease break" }

// Run breaks the lease; exit 1 when it is gone or changed meanwhile.
func (c *LeaseBreakCmd) Run(app *App) error {
	key, err := ParseKey("KEY", c.Key)
	if err != nil {
		return err
	}
	stamp := ""
	switch {
	case strings.TrimSpace(c.Stamp) == store.NullStamp:
		// What get, list and lease list print for a row whose ver is no
		// stamp: break it while it still has none (coord.Break).
		stamp = store.NullStamp
	case c.Stamp != "":
		if stamp, err = parseStamp("--stamp", c.Stamp); err != nil {
			return err
		}
	}
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MustExist})
	if err != nil {
		return err
	}
	if stamp == "" {
		e, found, err := s.Get(app.Context(), key)
		if err != nil {
			return err
		}
		if !found {
			return NotDone("no live lease at %s; nothing to break", codec.Format(key))
		}
		stamp = e.Versionstamp()
	}
	ok, err := coord.Break(app.Context(), s, key, stamp)
	if err != nil {
		return err
	}
	return leaseVerdict(app, leaseJSON{Key: key, Versionstamp: stamp, Broken: &ok}, ok, "broken",
		" (released, lapsed or re-acquired meanwhile)")
}

// leaseVerdict prints the result j of an action guarded by the lease's
// versionstamp, done (ok) or not ("not " + done); not done, it exits 1
// saying why (the lease is no longer at that stamp).
func leaseVerdict(app *App, j leaseJSON, ok bool, done, why string) error {
	if !ok {
		done = "not " + done
	}
	app.Out.Result(j, done+" "+codec.Format(j.Key)+"  v="+j.Versionstamp)
	if !ok {
		return NotDone("the lease at %s is no longer at %s%s; nothing was changed", codec.Format(j.Key), j.Versionstamp, why)
	}
	return nil
}

// parseStamp validates a versionstamp typed by a user and returns it in
// its 20-digit form.
func parseStamp(what, s string) (string, error) {
	stamp, err := usertext.ParseStamp(s)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", what, shown(s), err)
	}
	return stamp, nil
}

// leaseWait reads how long to keep trying for a held lease
// (coord.LeaseOptions.Timeout): 0 typed is one attempt, coord's -1.
func leaseWait(what, s string) (time.Duration, error) {
	d, err := positiveDuration(what, s, true)
	if d == 0 && err == nil {
		d = -1
	}
	return d, err
}

// positiveDuration reads a whole-millisecond Go duration that must be
// positive (or zero when zeroOK).
func positiveDuration(what, s string, zeroOK bool) (time.Duration, error) {
	least := time.Millisecond
	if zeroOK {
		least = 0
	}
	d, err := usertext.ParseDurationAtLeast(s, least)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", what, shown(s), err)
	}
	return d, nil
}
