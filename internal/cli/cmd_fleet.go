package cli

import (
	"fmt"
	"strings"
	"time"

	"kvdeck/internal/storeconfig"
	"kvdeck/internal/usertext"
	"kvdeck/store/coord"
)

// FleetCmd gathers the commands that act on every saved store.
type FleetCmd struct {
	Status FleetStatusCmd `cmd:"" default:"withargs" help:"One row per saved store (the default): reachability, round trip, seq, rows, leases, overdue alarms, queues, expired rows, doctor's findings."`
	Find   FleetFindCmd   `cmd:"" help:"Which saved stores hold a key (and its stamp in each), or how many keys under a prefix (--prefix)."`
	Doctor FleetDoctorCmd `cmd:"" help:"Run doctor on every saved store (or one group) concurrently; one JSON line per store; exit 0 healthy, 1 findings, 2 errors."`
}

// FleetDoctorCmd runs doctor on the saved stores.
type FleetDoctorCmd struct {
	Group       string        `name:"group" short:"g" placeholder:"GROUP" predictor:"group" help:"Only the stores of this group."`
	Concurrency int           `name:"concurrency" default:"8" help:"How many stores are examined at once."`
	Timeout     time.Duration `name:"timeout" placeholder:"DURATION" default:"15s" help:"How long a server may take (token, connection, doctor) before its store is an error row."`
}

// DefaultJSON: the rows are JSON lines unless --output text is given.
func (c *FleetDoctorCmd) DefaultJSON() bool { return true }

// fleetDoctorRow is one store's line.
type fleetDoctorRow struct {
	Store    string          `json:"store"`
	Group    string          `json:"group,omitempty"`
	URL      string          `json:"url"`
	Status   string          `json:"status"` // healthy, findings, error
	Errors   int             `json:"errors"`
	Warnings int             `json:"warnings"`
	Infos    int             `json:"infos"`
	Findings []coord.Finding `json:"findings"`
	Error    string          `json:"error,omitempty"`
	MS       int64           `json:"ms"`
}

// Run examines the stores, at most --concurrency at once, each within
// --timeout, and prints their rows in name order, each as soon as it and
// the rows before it are in. A store that cannot be reached, refused its
// token or is not a store is an error row; the others go on. Exit 2 when
// any row is an error, else 1 when any store has a finding of severity
// error (kvdeck doctor's rule), else 0.
func (c *FleetDoctorCmd) Run(app *App) error {
	if err := fleetLimits(c.Concurrency, c.Timeout); err != nil {
		return err
	}
	cfg, stores, err := fleetStores(app, c.Group)
	if err != nil {
		return err
	}
	worst := 0
	fleetEach(app, stores, c.Concurrency,
		func(s storeconfig.Store) fleetDoctorRow { return c.examine(app, cfg, s) },
		func(s storeconfig.Store, err error) fleetDoctorRow { return fleetErrorRow(s, err, "", 0) },
		func(r fleetDoctorRow) {
			app.Out.Result(r, fleetRowText(r))
			switch {
			case r.Status == "error":
				worst = max(worst, CodeError)
			case r.Errors > 0:
				worst = max(worst, CodeNotDone)
			}
		})
	if worst != 0 {
		return &ExitError{Code: worst}
	}
	return nil
}

// examine runs doctor on one store (a server's within the timeout): opened read-only
// (doctor only reads; no journal), with its own token and no other.
func (c *FleetDoctorCmd) examine(app *App, cfg *storeconfig.Config, s storeconfig.Store) fleetDoctorRow {
	start := time.Now()
	ctx, cancel, st, token, err := fleetOpen(app, cfg, s, c.Timeout)
	defer cancel()
	if err != nil {
		return fleetErrorRow(s, err, token, time.Since(start))
	}
	defer st.Close()
	fs, err := coord.Doctor(ctx, st, app.Now())
	if err != nil {
		return fleetErrorRow(s, err, token, time.Since(start))
	}
	r := fleetDoctorRow{Store: s.Name, Group: s.Group, URL: s.URL, Status: "healthy", Findings: fs, MS: time.Since(start).Milliseconds()}
	if r.Findings == nil {
		r.Findings = []coord.Finding{}
	}
	for _, f := range fs {
		switch f.Severity {
		case coord.SeverityError:
			r.Errors++
		case coord.SeverityWarning:
			r.Warnings++
		default:
			r.Infos++
		}
	}
	if r.Errors > 0 {
		r.Status = "findings"
	}
	return r
}

// fleetErrorRow is the row of a store that could not be examined; the token
// is cut from the message (the store scrubs its own errors; this covers
// the rest).
func fleetErrorRow(s storeconfig.Store, err error, token string, took time.Duration) fleetDoctorRow {
	msg := err.Error()
	if token != "" {
		msg = strings.ReplaceAll(msg, token, "<redacted>")
	}
	return fleetDoctorRow{Store: s.Name, Group: s.Group, URL: s.URL, Status: "error", Findings: []coord.Finding{}, Error: msg, MS: took.Milliseconds()}
}

// fleetRowText is a row for --output text: the store's line, then its
// findings indented.
func fleetRowText(r fleetDoctorRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s", r.Store, r.Status)
	if r.Status == "error" {
		fmt.Fprintf(&b, "  %s", r.Error)
	} else {
		fmt.Fprintf(&b, "  %d error, %d warning, %d info  %dms", r.Errors, r.Warnings, r.Infos, r.MS)
	}
	for _, f := range r.Findings {
		b.WriteString("\n  " + f.String())
	}
	return usertext.SanitizeLines(b.String())
}
