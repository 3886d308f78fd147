package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"kvdeck/internal/storeconfig"
	"kvdeck/internal/usertext"
	"kvdeck/store"
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
	// state is an error row's state in a word or two (fleetState).
	state string
}

// Run reads the stores, at most --concurrency at once, each server's
// within --timeout, and prints a table (text) or a JSON line per store in
// name order; with --watch again every interval until interrupted (then
// exit 0). Exit 2 when any store is an error row, else 0: findings do not
// fail it (fleet doctor's exit code is for that).
//
// Text goes three ways (fleetStatusOut): to a terminal, a table of the
// columns that fit its width, each store's error below it, and under
// --watch that table redrawn in place every round (as watch(1) does);
// to a pipe or a file every column and each error on its row, and under
// --watch one line per store and round, each with its time.
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
	out := c.output(app, slices.ContainsFunc(stores, hasTenancy))
	var members *fleetMembers // the stores kept open between rounds (--watch)
	if c.Watch > 0 {
		members = &fleetMembers{}
		defer members.close()
		defer out.end()
	}
	for {
		failed, err := c.round(app, cfg, stores, trends, members, out)
		switch {
		case err != nil:
			return err
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
// row is an error, err a failure to write them.
func (c *FleetStatusCmd) round(app *App, cfg *storeconfig.Config, stores []storeconfig.Store, trends map[string]*fleetTrend, members *fleetMembers, out *fleetStatusOut) (failed bool, err error) {
	var lines []fleetLine
	estimated := false
	fleetEach(app, stores, c.Concurrency,
		func(s storeconfig.Store) fleetStatusRow { return c.examine(app, cfg, s, members) },
		func(s storeconfig.Store, err error) fleetStatusRow {
			return fleetStatusRow{Store: s.Name, Group: s.Group, URL: s.URL, Status: "error", Error: err.Error(), state: store.Trouble(err)}
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
			var more []string
			if c.Watch > 0 {
				more = tr.cells(r.CommitsPerSec)
			}
			if out.platform {
				more = append(more, r.tenancyFacts.text())
			}
			lines = append(lines, fleetStatusLine(r, more))
		})
	if app.Out.JSON() {
		return failed, app.Out.Flush() // each round as it ends (--watch)
	}
	return failed, out.round(lines, estimated)
}

// fleetStatusOut prints fleet status's text rounds: where, and what the
// rounds before showed (the columns' widths, the errors).
type fleetStatusOut struct {
	out      *Printer
	stderr   io.Writer
	table    *fleetTable
	watch    time.Duration
	platform bool // a PLATFORM column
	rounds   int
	// heads is the header a pipe saw last (it is printed again when a
	// column widened); notes are the errors of the last round.
	heads string
	notes []string
	// estimated is whether a pipe's reader was told what ~ means.
	estimated bool
}

func (c *FleetStatusCmd) output(app *App, platform bool) *fleetStatusOut {
	return &fleetStatusOut{out: app.Out, stderr: app.Stderr, table: newFleetTable(c.columns(platform)), watch: c.Watch, platform: platform}
}

// columns are the text table's: those of --watch and PLATFORM when they
// have cells; give is the order in which they give way to a narrow
// terminal (the trend first, then what a store's health needs least).
func (c *FleetStatusCmd) columns(platform bool) []fleetColumn {
	cols := []fleetColumn{
		{head: "STORE"}, {head: "GROUP", give: 8}, {head: "STATUS"}, {head: "RTT", min: 5, give: 5},
		{head: "SEQ", give: 4}, {head: "ROWS", give: 7}, {head: "LEASES h/e/x", give: 12},
		{head: "ALARMS LATE", give: 11}, {head: "QUEUE r/d/age/fin", give: 10},
		{head: "EXPIRED", give: 3}, {head: "FINDINGS", give: 9},
	}
	if c.Watch > 0 {
		cols = append(cols, fleetColumn{head: "COMMITS/S", give: 6}, fleetColumn{head: "TREND", min: fleetTrendLen, give: 1})
	}
	if platform {
		cols = append(cols, fleetColumn{head: "PLATFORM", give: 2})
	}
	return cols
}

// round prints one round's lines and flushes them; estimated says a
// figure is estimated (fleetEstimateNote goes under the table, or once
// on stderr beside a pipe's one line per store).
func (o *fleetStatusOut) round(lines []fleetLine, estimated bool) error {
	o.rounds++
	o.notes = fleetNotes(lines)
	var foot []string
	if estimated {
		foot = []string{fleetEstimateNote}
	}
	width, height, tty := o.out.Terminal()
	switch {
	case tty && o.watch > 0:
		return o.out.Redraw(o.table.screen(o.title(lines), lines, foot, width, height))
	case tty:
		o.out.Textf("%s", strings.Join(append(o.table.fitted(lines, width), foot...), "\n"))
	case o.watch > 0:
		o.table.grow(lines)
		at := timeText(time.Now().UnixMilli())
		cols := o.table.shown(0)
		if heads := o.table.header(cols); heads != o.heads {
			o.heads = heads
			o.out.Textf("%s  %s", fmt.Sprintf("%-*s", len(at), "TIME"), heads)
		}
		for _, l := range lines {
			o.out.Textf("%s  %s", at, withNote(o.table.row(l.cells, cols), l.note))
		}
		if estimated && !o.estimated {
			o.estimated = true
			fmt.Fprintf(o.stderr, "kvdeck: %s\n", fleetEstimateNote)
		}
	default:
		o.out.Textf("%s", strings.Join(append(o.table.text(lines), foot...), "\n"))
	}
	return o.out.Flush()
}

// title is the first line of a --watch screen: what it is, when it was
// read, and how the stores are.
func (o *fleetStatusOut) title(lines []fleetLine) string {
	bad := 0
	for _, l := range lines {
		if l.note != "" {
			bad++
		}
	}
	health := plural(int64(len(lines)), "store")
	if bad > 0 {
		health += fmt.Sprintf(", %d not read", bad)
	}
	return fmt.Sprintf("kvdeck fleet · %s · every %s · %s · ctrl+c ends", health, o.watch, timeText(time.Now().UnixMilli()))
}

// end closes a --watch on a terminal: the screen stays, the cursor goes
// below it, and the errors of the last round, cut on the screen, are
// printed whole on stderr.
func (o *fleetStatusOut) end() {
	if _, _, tty := o.out.Terminal(); !tty || o.rounds == 0 || o.out.JSON() {
		return
	}
	for _, n := range o.notes {
		fmt.Fprintf(o.stderr, "kvdeck: %s\n", n)
	}
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
		r.Status, r.Error, r.state = "error", fleetError(err, token), store.Trouble(err)
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
		if len(t.rates) > fleetTrendLen {
			t.rates = t.rates[1:]
		}
	}
	t.seq, t.at = seq, at
	return rate
}

// fleetTrendLen is how many rounds TREND shows.
const fleetTrendLen = 12

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

// fleetStatusLine is a store's row of the text table, more the cells of
// the --watch and PLATFORM columns; every cell is sanitised (a store's
// name, group or error never reaches the terminal raw). An error row has
// its state in STATUS, a dash in every figure, and its error as its note.
func fleetStatusLine(r fleetStatusRow, more []string) fleetLine {
	cells := []string{r.Store, orDash(r.Group)}
	if r.Status == "error" {
		cells = append(cells, r.state, usertext.DurationText(r.MS), "-", "-", "-", "-", "-", "-", "-")
		for range more {
			cells = append(cells, "-")
		}
		return fleetLine{store: r.Store, cells: fleetCells(cells...), note: r.Error}
	}
	seq := "-"
	if r.Seq != nil {
		seq = fmt.Sprint(*r.Seq)
	}
	late := fmt.Sprint(r.AlarmsOverdue)
	if r.AlarmsOverdue > 0 {
		late += " (" + usertext.DurationText(r.WorstLatenessMS) + ")"
	}
	findings := fmt.Sprint(r.Findings)
	if r.FindingErrors > 0 {
		findings += fmt.Sprintf(" (%d error)", r.FindingErrors)
	}
	rows, expired := r.rowsText, r.expiredText
	cells = append(cells, "ok", usertext.DurationText(r.RTTMS), seq, rows,
		fmt.Sprintf("%d/%d/%d", r.LeasesHeld, r.LeasesExpiring, r.LeasesExpired), late,
		fmt.Sprintf("%d/%d/%s/%d", r.QueueReady, r.QueueDelayed, usertext.DurationText(r.OldestReadyMS), r.QueueFinal),
		expired, findings)
	return fleetLine{store: r.Store, cells: fleetCells(append(cells, more...)...)}
}

// fleetRequestsPerStore is what kvdeck fleet sends a server per store and
// round (TestFleetStatusBudget counts it behind the latency proxy): the
// store is opened unchecked (no request) and coord.ReadPulse's one
// statement is also the schema check. The driver's stream close follows
// in the background (a close-only request, which the proxy does not count).
const fleetRequestsPerStore = 1
