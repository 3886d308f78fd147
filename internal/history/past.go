package history

import (
	"context"
	"errors"
	"fmt"

	"kvdeck/store"
)

// Opener opens a point made readable (Opened's URL and token) read-only;
// the caller closes the store it returns.
type Opener func(ctx context.Context, url, token string) (*store.Store, error)

// Machine reads one store's past: its source, the private directory
// restores go to, and how a point made readable is opened. The CLI makes
// one per command; the TUI keeps one for its session (:at, a key's
// history).
type Machine struct {
	Source Source
	Dir    Dir
	Open   Opener
}

// Past is a store opened as it was at a point: what every front end
// shows under --at (the CLI's commands, the TUI's :at).
type Past struct {
	Store  *store.Store
	Source Source
	// Points are the source's points (nil for a source of instants) and
	// Choice the one picked among them.
	Points []Point
	Choice Choice
	opened Opened
}

// Close closes the store, then removes what made the point readable (a
// restored file, a branch database).
func (p *Past) Close(ctx context.Context) error {
	err := p.Store.Close()
	if p.opened.Close != nil {
		err = errors.Join(err, p.opened.Close(ctx))
	}
	return err
}

// Label is the point for a status line: "txid 42 · 2026-…", or the
// instant alone for a source of instants.
func (p *Past) Label(timeText func(int64) string) string {
	if p.Choice.Index < 0 {
		return timeText(p.Choice.Point.At)
	}
	return p.Choice.Point.Label(p.Source.Kind()) + " · " + timeText(p.Choice.Point.At)
}

// Text names the point picked and its source for people.
func (p *Past) Text() string {
	return p.Choice.Text(p.Source.Kind()) + " from " + p.Source.Describe()
}

// Continuous reports whether src gives any instant rather than points.
func Continuous(src Source) bool {
	return src.Kind() == KindTurso || src.Kind() == KindSqld
}

// At opens the store as of the spec text (ParseSpec at now): the
// source's points listed, the one for the spec picked (Pick), made
// readable and opened. The caller closes the Past.
func (m *Machine) At(ctx context.Context, text string, now int64) (*Past, error) {
	src, w, open := m.Source, m.Dir, m.Open
	spec, err := ParseSpec(text, now)
	if err != nil {
		return nil, err
	}
	points, err := src.Points(ctx)
	if err != nil {
		return nil, err
	}
	choice, err := Pick(points, spec, Continuous(src))
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, src.Describe())
	}
	opened, err := src.Open(ctx, choice.Point, w)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", choice.Point.Label(src.Kind()), err)
	}
	s, err := open(ctx, opened.URL, opened.Token)
	if err != nil {
		cerr := opened.Close(context.WithoutCancel(ctx))
		return nil, errors.Join(fmt.Errorf("%s: %w", choice.Point.Label(src.Kind()), err), cerr)
	}
	return &Past{Store: s, Source: src, Points: points, Choice: choice, opened: opened}, nil
}

// KeyAt restores point p, reads the key's physical row and the store's
// seq there, and removes the restore at once (a key's history reads many
// points).
func (m *Machine) KeyAt(ctx context.Context, p Point, raw []byte) (KeyState, error) {
	src, w, open := m.Source, m.Dir, m.Open
	opened, err := src.Open(ctx, p, w)
	if err != nil {
		return KeyState{}, err
	}
	defer opened.Close(context.WithoutCancel(ctx))
	s, err := open(ctx, opened.URL, opened.Token)
	if err != nil {
		return KeyState{}, fmt.Errorf("%s: %w", p.Label(src.Kind()), err)
	}
	defer s.Close()
	seq, err := s.Seq(ctx)
	if err != nil {
		return KeyState{}, err
	}
	row, err := Physical(ctx, s, raw)
	return KeyState{Seq: seq, Row: row}, err
}

// KeyChanges is the key's history across points (a window of the
// source's points): from a recording, its versions (nothing restored:
// restored false); from another source, KeyHistory restoring at most
// maxReads points (0: no bound).
func (m *Machine) KeyChanges(ctx context.Context, points []Point, raw []byte, maxReads int) (res KeyHistoryResult, restored bool, err error) {
	if rs, ok := m.Source.(RecordingSource); ok {
		res, err = RecordedChanges(ctx, rs.R, points, raw)
		return res, false, err
	}
	res, err = KeyHistory(ctx, points, maxReads, func(ctx context.Context, i int) (KeyState, error) {
		return m.KeyAt(ctx, points[i], raw)
	})
	return res, true, err
}

// RecordedChanges turns a recording's versions of a key into changes
// over points: the version live at the first point, then each version
// that began, or ended with none after it, at a later one. Every point
// of a recording is its own state, so each change is pinned to the
// point just before it. Nothing is restored.
func RecordedChanges(ctx context.Context, r *Recording, points []Point, raw []byte) (KeyHistoryResult, error) {
	res := KeyHistoryResult{Of: len(points)}
	versions, err := r.KeyVersions(ctx, raw)
	if err != nil || len(points) == 0 {
		return res, err
	}
	// at is the row live at poll id (nil: none).
	at := func(id uint64) *store.RawRow {
		for _, v := range versions {
			if v.Since <= id && (v.Until == 0 || v.Until > id) {
				row := v.Row
				return &row
			}
		}
		return nil
	}
	prevRow := at(points[0].TXID)
	res.Changes = append(res.Changes, KeyChange{Index: 0, Point: points[0], After: -1, Row: prevRow, Seq: points[0].Seq})
	for i := 1; i < len(points); i++ {
		row := at(points[i].TXID)
		if SameVersion(prevRow, row) {
			continue
		}
		res.Changes = append(res.Changes, KeyChange{Index: i, Point: points[i], After: i - 1, Row: row, Seq: points[i].Seq})
		prevRow = row
	}
	return res, nil
}

// SameVersion reports whether two rows (nil: none) are the same version.
func SameVersion(a, b *store.RawRow) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Ver == b.Ver
}

// Physical is the physical row at raw in s (expired or not), nil when
// there is none.
func Physical(ctx context.Context, s *store.Store, raw []byte) (*store.RawRow, error) {
	e, found, err := s.GetRaw(ctx, raw)
	if err != nil || !found {
		return nil, err
	}
	return &store.RawRow{Key: raw, Value: e.Value, Ver: e.Ver, ExpiresAt: e.ExpiresAt}, nil
}
