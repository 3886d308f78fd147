package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"kvdeck/codec"
	"kvdeck/internal/history"
	"kvdeck/internal/usertext"
	"kvdeck/store"
)

// HistoryCmd lists the store's restore points, or a key's values across
// them.
type HistoryCmd struct {
	Key      string `arg:"" optional:"" name:"key" help:"A key: its values across the points, only where it changed. Without it, the points."`
	Since    string `name:"since" placeholder:"TIME" help:"Only the points from TIME on (RFC 3339, -1h, txid:N)."`
	Until    string `name:"until" placeholder:"TIME" help:"Only the points up to TIME."`
	MaxReads int    `name:"max-reads" default:"64" placeholder:"N" help:"Restore at most N points to find the key's changes (0: no bound); stretches left unread are named."`
	Paths    bool   `name:"paths" help:"Under each change, the JSON paths the value changed at (jq syntax), old -> new."`
}

// Help says where the points come from and what is read.
func (c *HistoryCmd) Help() string {
	return `The store's past comes from its Litestream replica (the saved store's
litestream_replica, or --replica URL), else from kvdeck record's history
of it. Without KEY, history lists the restore points (--at takes any of
them, or a time: the newest point at or before it).

With KEY, it lists the key's row at the first point and then at each
point where it changed (a new value, a new stamp, no row), with the
point's time. From a replica each point read is a restore of the whole
database, so history reads as few as it can: the first and the last,
then the middle of every stretch whose ends differ; a stretch whose ends
hold the same stamp is skipped (a key's stamp only grows: the same stamp
at both ends means no set in between), and one with no row at both ends
and no set between too. A stretch with no row at both ends but sets
between may hide a row that came and went: those are read last, while
--max-reads allows, and the ones left are named. The last line says how
many points were read. A recording holds every version it saw: nothing
is restored.

kvdeck --at TIME put-back KEY puts a key back as it was then.`
}

// historyPoint is a point in -o json.
type historyPoint struct {
	TXID uint64 `json:"txid,omitempty"`
	Poll uint64 `json:"poll,omitempty"`
	At   int64  `json:"at"`
	Time string `json:"time"`
	Seq  int64  `json:"seq,omitempty"`
	Gap  bool   `json:"gap,omitempty"`
}

func newHistoryPoint(kind string, p history.Point) historyPoint {
	out := historyPoint{At: p.At, Time: timeText(p.At), Seq: p.Seq, Gap: p.Gap}
	if kind == history.KindRecord {
		out.Poll = p.TXID
	} else {
		out.TXID = p.TXID
	}
	return out
}

// Run lists the points, or the key's changes.
func (c *HistoryCmd) Run(app *App) error {
	if app.Globals.At != "" {
		return fmt.Errorf("history reads every point: give --since and --until instead of --at")
	}
	ctx := app.Context()
	t := app.globalTarget()
	src, err := app.source(t)
	if err != nil {
		return err
	}
	if src.Kind() == history.KindTurso {
		return fmt.Errorf("%s restores any instant and lists no points: kvdeck --at TIME opens one", src.Describe())
	}
	points, err := src.Points(ctx)
	if err != nil {
		return err
	}
	if points, err = c.window(app, points); err != nil {
		return err
	}
	if c.Key == "" {
		return c.points(app, src, points)
	}
	key, err := ParseKey("KEY", c.Key)
	if err != nil {
		return err
	}
	return c.key(ctx, app, src, points, key)
}

// window keeps the points between --since and --until.
func (c *HistoryCmd) window(app *App, points []history.Point) ([]history.Point, error) {
	inside := func(flag, text string, p history.Point, after bool) (bool, error) {
		if text == "" {
			return true, nil
		}
		spec, err := history.ParseSpec(text, app.Now())
		if err != nil {
			return false, fmt.Errorf("--%s %w", flag, err)
		}
		if spec.TXID != 0 {
			return after == (p.TXID >= spec.TXID) || p.TXID == spec.TXID, nil
		}
		return after == (p.At >= spec.At) || p.At == spec.At, nil
	}
	var out []history.Point
	for _, p := range points {
		ok1, err := inside("since", c.Since, p, true)
		if err != nil {
			return nil, err
		}
		ok2, err := inside("until", c.Until, p, false)
		if err != nil {
			return nil, err
		}
		if ok1 && ok2 {
			out = append(out, p)
		}
	}
	return out, nil
}

// points lists the points.
func (c *HistoryCmd) points(app *App, src history.Source, points []history.Point) error {
	kind := src.Kind()
	textOnly(app, "# %s: %s", src.Describe(), plural(int64(len(points)), "restore point"))
	for _, p := range points {
		line := fmt.Sprintf("%-12s  %s", p.Label(kind), timeText(p.At))
		if p.Seq != 0 {
			line += fmt.Sprintf("  seq %d", p.Seq)
		}
		if p.Gap {
			line += "  (after a gap: record was not running before it)"
		}
		app.Out.Result(newHistoryPoint(kind, p), line)
	}
	summary := map[string]any{"source": src.Describe(), "kind": kind, "points": len(points), "limits": src.Limits()}
	app.Out.Result(summary, "# what it cannot know: "+src.Limits())
	return nil
}

// historyChange is a change of the key in -o json.
type historyChange struct {
	Point historyPoint `json:"point"`
	Row   *watchRow    `json:"row"`
	// After is the point before it that was read (the change was made
	// after it); Exact when it is the point just before.
	After *historyPoint   `json:"after"`
	Exact bool            `json:"exact"`
	Paths json.RawMessage `json:"paths,omitempty"`
}

// key lists the key's changes: read from a recording's versions, or
// found across a replica's points by history.KeyHistory.
func (c *HistoryCmd) key(ctx context.Context, app *App, src history.Source, points []history.Point, key codec.Key) error {
	raw := codec.MustEncode(key)
	m, err := app.machine(src)
	if err != nil {
		return err
	}
	res, restored, err := m.KeyChanges(ctx, points, raw, c.MaxReads)
	if err != nil {
		return err
	}
	kind := src.Kind()
	textOnly(app, "# %s in %s", usertext.Sanitize(codec.Format(key)), src.Describe())
	var prev *store.RawRow
	for _, ch := range res.Changes {
		out := historyChange{Point: newHistoryPoint(kind, ch.Point), Row: rawWatchRow(ch.Row)}
		line := fmt.Sprintf("%-12s  %s  %s", ch.Point.Label(kind), timeText(ch.Point.At), rawRowText(ch.Row))
		if ch.After >= 0 {
			a := newHistoryPoint(kind, points[ch.After])
			out.After, out.Exact = &a, ch.After == ch.Index-1
			if !out.Exact {
				line += fmt.Sprintf("  (changed after %s; the %d points between were not read)", points[ch.After].Label(kind), ch.Index-ch.After-1)
			}
		}
		if c.Paths && prev != nil && ch.Row != nil {
			var dj diffJSON
			for _, l := range (&DiffCmd{MaxPaths: 100}).paths(&dj, historyDiffRow(prev), historyDiffRow(ch.Row)) {
				line += "\n    " + l
			}
			out.Paths = dj.Paths
		}
		app.Out.Result(out, line)
		prev = ch.Row
	}
	for _, u := range res.Unread {
		textOnly(app, "# not read: %s to %s (%d points): the key may have changed between them", points[u.First].Label(kind), points[u.Last].Label(kind), u.Last-u.First-1)
	}
	read := fmt.Sprintf("%d of %d points restored", res.Reads, res.Of)
	if !restored {
		read = fmt.Sprintf("none of %d points restored (the recording holds each version it saw)", res.Of)
	}
	unread := make([][2]uint64, len(res.Unread))
	for i, u := range res.Unread {
		unread[i] = [2]uint64{points[u.First].TXID, points[u.Last].TXID}
	}
	summary := map[string]any{"key": key, "changes": len(res.Changes), "read": res.Reads, "of": res.Of, "restored": restored, "unread": unread, "source": src.Describe(), "limits": src.Limits()}
	app.Out.Result(summary, fmt.Sprintf("# %s; %s; %s", plural(int64(len(res.Changes)), "state"), read, src.Describe()))
	return nil
}

// rawWatchRow is a row as watch prints one (nil: none).
func rawWatchRow(r *store.RawRow) *watchRow {
	if r == nil {
		return nil
	}
	e := store.Entry{Raw: r.Key, Value: r.Value, Ver: r.Ver, ExpiresAt: r.ExpiresAt}
	return newWatchRow(&e)
}

// rawRowText is a row for a text line: stamp, value, expiry; "no row".
func rawRowText(r *store.RawRow) string {
	if r == nil {
		return "no row"
	}
	w := rawWatchRow(r)
	return "v=" + w.Versionstamp + "  " + rowText(w)
}

// historyDiffRow is a row as diff's --paths compares one.
func historyDiffRow(r *store.RawRow) *diffRow {
	return &diffRow{raw: r.Key, value: r.Value, valid: json.Valid(r.Value), stamp: codec.FormatStamp(r.Ver), expiresAt: r.ExpiresAt}
}

// textOnly writes a line of text output (a heading, a note); -o json
// leaves it out.
func textOnly(app *App, format string, args ...any) {
	if !app.Out.JSON() {
		app.Out.Textf(format, args...)
	}
}
