package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"kvdeck/internal/storeconfig"
	"kvdeck/internal/usertext"
)

// FleetStatusCmd shows the coordination health of every saved store, one
// row each.
type FleetStatusCmd struct {
	Group       string        `name:"group" short:"g" placeholder:"GROUP" predictor:"group" help:"Only the stores of this group."`
	Concurrency int           `name:"concurrency" default:"16" help:"How many stores are read at once."`
	Timeout     time.Duration `name:"timeout" placeholder:"DURATION" default:"15s" help:"How long a server may take (token, connection, the read) before its store is an error row."`
	Watch       time.Duration `name:"watch" short:"w" placeholder:"INTERVAL" help:"Read the stores again every INTERVAL until interrupted; from the second round on each row has commits per second (seq's change) and a trend."`
}

// fleetStatusRow is one store's row: coord.ReadPulse's figures, read in
// one statement (one request to a server). ms fields are milliseconds.
type fleetStatusRow struct {
	Store  string `json:"store"`
	Group  string `json:"group,omitempty"`
	URL    string `json:"url"`
	Status string `json:"status"` // ok, error
	Error  string `json:"error,omitempty"`
	// RTTMS is how long the read took: over a server its one request.
	RTTMS int64  `json:"rttMs"`
	MS    int64  `json:"ms"`
	Seq   *int64 `json:"seq"`
	// CommitsPerSec is seq's change per second since the previous round
	// of --watch (absent in the first).
	CommitsPerSec *float64 `json:"commitsPerSec,omitempty"`
	// Rows counts every row. Rows, Expired and InvalidJSON are exact
	// unless Estimated: then estimated from a sample of SampledRows rows
	// spread over the table (coord.PulseWindows).
	Rows        int64 `json:"rows"`
	Estimated   bool  `json:"estimated,omitempty"`
	SampledRows int64 `json:"sampledRows,omitempty"`
	// rowsText and expiredText are Rows and Expired as the table shows
	// them (coord.EstimateText).
	rowsText, expiredText string
	// Leases: held, expiring (at most coord.ExpiringShare of the default
	// TTL left), expired and not swept (they hold nothing).
	LeasesHeld     int `json:"leasesHeld"`
	LeasesExpiring int `json:"leasesExpiring"`
	LeasesExpired  int `json:"leasesExpired"`
	// AlarmsOverdue counts due entries at or before now; WorstLatenessMS
	// is the oldest one's lateness (0 when none).
	AlarmsOverdue   int   `json:"alarmsOverdue"`
	WorstLatenessMS int64 `json:"worstLatenessMs"`
	// Queues, summed over every queue; OldestReadyMS is the oldest ready
	// message's age over them all.
	QueueReady    int   `json:"queueReady"`
	QueueDelayed  int   `json:"queueDelayed"`
	OldestReadyMS int64 `json:"oldestReadyMs"`
	QueueFinal    int   `json:"queueFinal"`
	// Expired rows not swept, store-wide; InvalidJSON rows whose value is
	// not JSON.
	Expired     int64 `json:"expired"`
	InvalidJSON int64 `json:"invalidJson"`
	// Findings counts doctor's findings of the codes one statement can see
	// (coord.Pulse.Findings: not orphans, duplicates, cron or meta; kvdeck
	// fleet doctor has them all); FindingErrors those of severity error.
	Findings      int `json:"findings"`
	FindingErrors int `json:"findingErrors"`
	// What the store's platform says of it (cmd_stores_tenants.go):
	// present only for a store whose entry names a namespace's admin
	// API, a replica or a Turso group.
	tenancyFacts
}

// Run reads the stores, at most --concurrency at once, each server's
// within --timeout, and prints a table (text) or a JSON line per store in
// name order; with --watch again every interval until interrupted (then
// exit 0). Exit 2 when any store is an error row, else 0: findings do not
// fail it (fleet doctor's exit code is for that).
func (c *FleetStatusCmd) Run(app *App) error {
	if err := fleetLimits(c.Concurrency, c.Timeout); err != nil {
		return err
	}
	if c.Watch < 0 {
		return fmt.Errorf("--watch %s: must be positive", c.Watch)
	}
	cfg, stores, err := fleetStores(app, c.Group)
	if err != nil {
		return err
	}
	trends := map[string]*fleetTrend{}
	var members *fleetMembers // the stores kept open between rounds (--watch)
	if c.Watch > 0 {
		members = &fleetMembers{}
		defer members.close()
	}
	for round := 0; ; round++ {
		if round > 0 && !app.Out.JSON() {
			app.Out.Textf("\n%s", time.Now().UTC().Format(time.TimeOnly))
		}
		failed := c.round(app, cfg, stores, trends, members)
		switch {
		case c.Watch == 0 && failed:
			return &ExitError{Code: CodeError}
		case c.Watch == 0 || app.Context().Err() != nil:
			return nil // an interrupt ends --watch: no error
		}
		select {
		case <-app.Context().Done():
			return nil
		case <-time.After(c.Watch):
		}
	}
}

// round reads every store once and prints the rows; failed is whether a
// row is an error.
func (c *FleetStatusCmd) round(app *App, cfg *storeconfig.Config, stores []storeconfig.Store, trends map[string]*fleetTrend, members *fleetMembers) (failed bool) {
	estimated := false
	var text strings.Builder
	tw := tabwriter.NewWriter(&text, 0, 0, 2, ' ', 0)
	head := "STORE\tGROUP\tSTATUS\tRTT\tSEQ\tROWS\tLEASES h/e/x\tALARMS LATE\tQUEUES r/d/oldest/final\tEXPIRED\tFINDINGS"
	if c.Watch > 0 {
		head += "\tCOMMITS/S\tTREND"
	}
	platformColumn := slices.ContainsFunc(stores, hasTenancy)
	if platformColumn {
		head += "\tPLATFORM"
	}
	fmt.Fprintln(tw, head)
	fleetEach(app, stores, c.Concurrency,
		func(s storeconfig.Store) fleetStatusRow { return c.examine(app, cfg, s, members) },
		func(s storeconfig.Store, err error) fleetStatusRow {
			return fleetStatusRow{Store: s.Name, Group: s.Group, URL: s.URL, Status: "error", Error: err.Error()}
		},
		func(r fleetStatusRow) {
			failed = failed || r.Status == "error"
			estimated = estimated || r.Estimated
			tr := trends[r.Store]
			if tr == nil {
				tr = &fleetTrend{}
				trends[r.Store] = tr
			}
			r.CommitsPerSec = tr.add(r.Seq, time.Now())
			if app.Out.JSON() {
				app.Out.Object(r)
				return
			}
			var watch []string
			if c.Watch > 0 {
				watch = tr.cells(r.CommitsPerSec)
			}
			if platformColumn {
				watch = append(watch, r.tenancyFacts.text())
			}
			fmt.Fprintln(tw, fleetStatusText(r, watch))
		})
	if !app.Out.JSON() {
		_ = tw.Flush()
		app.Out.Textf("%s", strings.TrimSuffix(text.String(), "\n"))
		if estimated {
			app.Out.Textf("%s", fleetEstimateNote)
		}
	}
	return failed
}

// fleetEstimateNote says what a ~ figure is, under a table that has one.
const fleetEstimateNote = "~ estimated from a sample of at most 4096 rows spread over the store (ROWS, EXPIRED); kvdeck stats or doctor counts them all"

// examine opens one store unchecked (no request), or takes it from
// members, and reads its pulse: the one request, which is also the schema
// check.
func (c *FleetStatusCmd) examine(app *App, cfg *storeconfig.Config, s storeconfig.Store, members *fleetMembers) fleetStatusRow {
	start := time.Now()
	r := fleetStatusRow{Store: s.Name, Group: s.Group, URL: s.URL, Status: "ok"}
	p, token, rtt, err := fleetPulse(app, cfg, s, c.Timeout, members)
	if hasTenancy(s) {
		ctx, cancel := context.WithTimeout(app.Context(), c.Timeout)
		r.tenancyFacts = readTenancy(ctx, app, cfg, s)
		cancel()
	}
	r.RTTMS, r.MS = rtt.Milliseconds(), time.Since(start).Milliseconds()
	if err != nil {
		r.Status, r.Error = "error", fleetError(err, token)
		if r.Blocked != "" {
			r.Error += " (the platform blocks its " + r.Blocked + ")"
		}
		return r
	}
	r.Seq, r.Rows, r.Expired, r.InvalidJSON = p.Seq, p.Rows, p.Expired, p.InvalidJSON
	r.rowsText, r.expiredText = p.RowsText(), p.ExpiredText()
	if p.Estimated {
		r.Estimated, r.SampledRows = true, p.Sampled
	}
	r.LeasesHeld, r.LeasesExpiring, r.LeasesExpired = p.LeasesHeld, p.LeasesExpiring, p.LeasesExpired
	r.AlarmsOverdue, r.WorstLatenessMS = p.AlarmsOverdue, p.WorstLatenessMs
	r.QueueReady, r.QueueDelayed, r.OldestReadyMS, r.QueueFinal = p.QueueReady, p.QueueDelayed, p.OldestReadyMs, p.QueueFinal
	r.Findings, r.FindingErrors = p.Findings, p.FindingErrors
	return r
}

// fleetTrend is one store's history across --watch rounds.
type fleetTrend struct {
	seq   *int64
	at    time.Time
	rates []float64
}

// add notes a round's seq and returns the commits per second since the
// previous round (nil in the first, or when either seq is unknown).
func (t *fleetTrend) add(seq *int64, at time.Time) *float64 {
	var rate *float64
	if seq != nil && t.seq != nil && at.After(t.at) {
		v := float64(*seq-*t.seq) / at.Sub(t.at).Seconds()
		rate = &v
		t.rates = append(t.rates, v)
		if len(t.rates) > 12 {
			t.rates = t.rates[1:]
		}
	}
	t.seq, t.at = seq, at
	return rate
}

// cells are the commits-per-second cell and the trend's sparkline.
func (t *fleetTrend) cells(rate *float64) []string {
	if rate == nil {
		return []string{"-", ""}
	}
	return []string{fmt.Sprintf("%.1f", *rate), sparkText(t.rates)}
}

// sparkText draws vals as a line of eighth blocks, scaled to their
// maximum (a zero is the lowest block).
func sparkText(vals []float64) string {
	levels := []rune("▁▂▃▄▅▆▇█")
	top := 0.0
	for _, v := range vals {
		top = max(top, v)
	}
	var b strings.Builder
	for _, v := range vals {
		i := 0
		if top > 0 && v > 0 {
			i = max(1, min(len(levels)-1, int(v/top*float64(len(levels)-1)+0.5)))
		}
		b.WriteRune(levels[i])
	}
	return b.String()
}

// fleetStatusText is a row of the text table, watch the --watch columns'
// cells (none without); every cell is sanitised (a store's name, group or
// error never reaches the terminal raw). An error row has a dash in every
// column and its error after the last: a cell of every column keeps the
// columns aligned across it (tabwriter aligns a column over consecutive
// lines that have it).
func fleetStatusText(r fleetStatusRow, watch []string) string {
	cells := []string{r.Store, orDash(r.Group)}
	if r.Status == "error" {
		cells = append(cells, "error", usertext.ShortMillis(r.MS), "-", "-", "-", "-", "-", "-", "-")
		for range watch {
			cells = append(cells, "-")
		}
		return sanitizeCells(append(cells, r.Error))
	}
	seq := "-"
	if r.Seq != nil {
		seq = fmt.Sprint(*r.Seq)
	}
	late := fmt.Sprint(r.AlarmsOverdue)
	if r.AlarmsOverdue > 0 {
		late += " (" + usertext.ShortMillis(r.WorstLatenessMS) + ")"
	}
	findings := fmt.Sprint(r.Findings)
	if r.FindingErrors > 0 {
		findings += fmt.Sprintf(" (%d error)", r.FindingErrors)
	}
	rows, expired := r.rowsText, r.expiredText
	cells = append(cells, "ok", usertext.ShortMillis(r.RTTMS), seq, rows,
		fmt.Sprintf("%d/%d/%d", r.LeasesHeld, r.LeasesExpiring, r.LeasesExpired), late,
		fmt.Sprintf("%d/%d/%s/%d", r.QueueReady, r.QueueDelayed, usertext.ShortMillis(r.OldestReadyMS), r.QueueFinal),
		expired, findings)
	return sanitizeCells(append(cells, watch...))
}

// sanitizeCells joins cells with tabs, each made safe for a terminal and
// without a tab or line break of its own (which would shift the table).
func sanitizeCells(cells []string) string {
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(usertext.Sanitize(c), "\t", `\t`)
	}
	return strings.Join(cells, "\t")
}

// fleetRequestsPerStore is what kvdeck fleet sends a server per store and
// round (TestFleetStatusBudget counts it behind the latency proxy): the
// store is opened unchecked (no request) and coord.ReadPulse's one
// statement is also the schema check. The driver's stream close follows
// in the background (a close-only request, which the proxy does not count).
const fleetRequestsPerStore = 1
