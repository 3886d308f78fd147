package cli

import (
	"errors"
	"fmt"
	"strings"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store/coord"
)

// AlarmCmd groups the alarm library (store/coord).
type AlarmCmd struct {
	List   AlarmListCmd   `cmd:"" help:"List the alarms of every class (or CLASS) in time order, with overdue, poison, orphan and never-firing ones flagged."`
	Set    AlarmSetCmd    `cmd:"" help:"Schedule or replace the alarm of CLASS/ID at TIME (retry count 0)."`
	Get    AlarmGetCmd    `cmd:"" help:"Print the alarm of CLASS/ID; exit 1 when none is set."`
	Delete AlarmDeleteCmd `cmd:"" help:"Delete the alarm of CLASS/ID (both rows); exit 1 when none was set."`
	Fire   AlarmFireCmd   `cmd:"" help:"Act as a poller of CLASS: claim the due alarms under each object's lease and report each one fired (no handler runs)."`
}

// alarmJSON is an alarm: the result of get, set and fire, and a line of
// list (which adds the row details).
type alarmJSON struct {
	Class        string     `json:"class"`
	ID           string     `json:"id"`
	EpochMs      *int64     `json:"epochMs"`
	RetryCount   *int       `json:"retryCount"`
	Index        string     `json:"index,omitempty"`
	Key          *codec.Key `json:"key,omitempty"`
	Versionstamp string     `json:"versionstamp,omitempty"`
	State        string     `json:"state,omitempty"`
	LatenessMs   *int64     `json:"latenessMs,omitempty"`
	Poison       bool       `json:"poison,omitempty"`
	Problem      string     `json:"problem,omitempty"`
}

// AlarmListCmd lists alarms.
type AlarmListCmd struct {
	Class string `arg:"" optional:"" name:"class" help:"Only this class."`
}

// Run prints, per class, every due entry in time order (state scheduled,
// overdue, orphan or malformed), then every by-id record without a
// matching due entry (state never-fires, or malformed).
func (c *AlarmListCmd) Run(app *App) error {
	s, err := app.Open(app.Context(), Opening{})
	if err != nil {
		return err
	}
	classes, _, err := coord.InspectAlarms(app.Context(), s, c.Class, app.Now())
	if err != nil {
		return err
	}
	n := 0
	for _, ac := range classes {
		for _, d := range ac.Due {
			n++
			printAlarmRow(app, ac.Class, "due", d)
		}
		for _, b := range ac.ByID {
			if !b.Matched {
				n++
				printAlarmRow(app, ac.Class, "by-id", b)
			}
		}
	}
	if n == 0 && !app.Out.JSON() {
		app.Out.Textf("no alarms")
	}
	return nil
}

// printAlarmRow prints one row of alarm list; its due time has a fixed
// width, so a class's rows line up.
func printAlarmRow(app *App, class, index string, a coord.AlarmEntry) {
	state := "scheduled"
	switch {
	case a.Problem != "":
		state = "malformed"
	case index == "by-id":
		state = "never-fires"
	case !a.Matched:
		state = "orphan"
	case a.Overdue:
		state = "overdue"
	}
	k := a.Key
	j := alarmJSON{Class: class, ID: a.ID, Index: index, Key: &k, Versionstamp: a.Versionstamp, State: state, Poison: a.Poison, Problem: a.Problem}
	if a.Problem == "" {
		j.EpochMs, j.RetryCount = &a.EpochMs, &a.RetryCount
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s  %s", usertext.Sanitize(class), usertext.Sanitize(a.ID), state)
	if a.Problem != "" {
		fmt.Fprintf(&b, "  %s  problem: %s", codec.Format(a.Key), usertext.Sanitize(a.Problem))
		app.Out.Result(j, b.String())
		return
	}
	fmt.Fprintf(&b, "  due=%s  retry=%d", timeText(a.EpochMs), a.RetryCount)
	if a.Overdue && a.Matched {
		j.LatenessMs = &a.LatenessMs
		fmt.Fprintf(&b, "  late=%s", millis(a.LatenessMs))
	}
	if a.Poison {
		b.WriteString("  poison")
	}
	app.Out.Result(j, b.String())
}

// AlarmSetCmd schedules an alarm.
type AlarmSetCmd struct {
	Class string `arg:"" name:"class" help:"The object class, e.g. Cart."`
	ID    string `arg:"" name:"id" help:"The object id (hex)."`
	Time  string `arg:"" name:"time" help:"When: epoch milliseconds, an RFC 3339 time, now, or +DURATION from now."`
}

// Writes names the write for the read-only refusal (writer).
func (c *AlarmSetCmd) Writes() string { return "alarm set" }

// Run writes the alarm and prints it.
func (c *AlarmSetCmd) Run(app *App) error {
	at, err := ParseTime(c.Time, app.Now())
	if err != nil {
		return fmt.Errorf("TIME: %w", err)
	}
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MayCreate})
	if err != nil {
		return err
	}
	if err := coord.SetAlarm(app.Context(), s, c.Class, c.ID, at); err != nil {
		return err
	}
	printAlarm(app, "set ", c.Class, c.ID, coord.AlarmRecord{EpochMs: at})
	return nil
}

// printAlarm prints an alarm record as {"class","id","epochMs","retryCount"}.
func printAlarm(app *App, verb, class, id string, rec coord.AlarmRecord) {
	app.Out.Result(alarmJSON{Class: class, ID: id, EpochMs: &rec.EpochMs, RetryCount: &rec.RetryCount},
		fmt.Sprintf("%s%s  %s  due=%s  retry=%d", verb, usertext.Sanitize(class), usertext.Sanitize(id), timeText(rec.EpochMs), rec.RetryCount))
}

// AlarmGetCmd reads an alarm.
type AlarmGetCmd struct {
	Class string `arg:"" name:"class" help:"The object class."`
	ID    string `arg:"" name:"id" help:"The object id."`
}

// Run prints the alarm, or nulls and exit 1 when none is set.
func (c *AlarmGetCmd) Run(app *App) error {
	s, err := app.Open(app.Context(), Opening{})
	if err != nil {
		return err
	}
	rec, found, err := coord.GetAlarm(app.Context(), s, c.Class, c.ID)
	if err != nil {
		return err
	}
	if !found {
		app.Out.Result(alarmJSON{Class: c.Class, ID: c.ID}, usertext.Sanitize(c.Class)+"  "+usertext.Sanitize(c.ID)+"  (no alarm)")
		return NotDone("")
	}
	printAlarm(app, "", c.Class, c.ID, rec)
	return nil
}

// AlarmDeleteCmd deletes an alarm.
type AlarmDeleteCmd struct {
	Class string `arg:"" name:"class" help:"The object class."`
	ID    string `arg:"" name:"id" help:"The object id."`
}

// alarmDeleteJSON is the result line of alarm delete.
type alarmDeleteJSON struct {
	Class   string `json:"class"`
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// Writes names the write for the read-only refusal (writer).
func (c *AlarmDeleteCmd) Writes() string { return "alarm delete" }

// Run deletes both rows; exit 1 when there was no alarm.
func (c *AlarmDeleteCmd) Run(app *App) error {
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MustExist})
	if err != nil {
		return err
	}
	deleted, err := coord.DeleteAlarm(app.Context(), s, c.Class, c.ID)
	if err != nil && !errors.Is(err, coord.ErrMalformed) {
		return err
	}
	text := "deleted " + usertext.Sanitize(c.Class) + "  " + usertext.Sanitize(c.ID)
	if !deleted {
		text = usertext.Sanitize(c.Class) + "  " + usertext.Sanitize(c.ID) + "  (no alarm)"
	}
	app.Out.Result(alarmDeleteJSON{Class: c.Class, ID: c.ID, Deleted: deleted}, text)
	if !deleted {
		return NotDone("")
	}
	return nil
}

// AlarmFireCmd fires due alarms.
type AlarmFireCmd struct {
	Class        string `arg:"" name:"class" help:"The object class."`
	Limit        int    `name:"limit" placeholder:"N" default:"100" help:"At most this many due alarms."`
	LeaseTimeout string `name:"lease-timeout" placeholder:"DURATION" default:"5s" help:"How long to wait for an object's lease before re-posting its alarm."`
}

// Writes names the write for the read-only refusal (writer).
func (c *AlarmFireCmd) Writes() string { return "alarm fire" }

// Run polls the class once at the virtual now, like a replica whose
// handler succeeds at once: each fired alarm is consumed and printed as
// {"class","id","epochMs","retryCount"}. Alarms it could not fire (lease
// held elsewhere: re-posted at now; superseded; claimed by another poller)
// are reported on stderr.
func (c *AlarmFireCmd) Run(app *App) error {
	if c.Limit <= 0 {
		return fmt.Errorf("--limit %d: must be positive", c.Limit)
	}
	timeout, err := leaseWait("--lease-timeout", c.LeaseTimeout)
	if err != nil {
		return err
	}
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MustExist})
	if err != nil {
		return err
	}
	p := &coord.AlarmPoller{Store: s, Class: c.Class, BatchSize: c.Limit, Lease: coord.LeaseOptions{Timeout: timeout}}
	fired, err := p.Poll(app.Context(), app.Now())
	for _, f := range fired {
		if f.Outcome == coord.AlarmFired {
			printAlarm(app, "fired ", f.Class, f.ID, coord.AlarmRecord{EpochMs: f.EpochMs, RetryCount: f.RetryCount})
			continue
		}
		msg := string(f.Outcome)
		if f.Outcome == coord.AlarmReposted {
			msg = fmt.Sprintf("re-posted at %s (its lease is held elsewhere: %v)", timeText(f.Next), f.Err)
		}
		app.Warnf("%s/%s not fired: %s", f.Class, f.ID, msg)
	}
	return err
}
