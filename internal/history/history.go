// Package history reads a store as it was: the sources that keep its
// past (a Litestream replica, kvdeck record's history file, a Turso
// branch made from a timestamp, an sqld fork), their restore points, the
// point nearest to a time asked for (Pick), a point made readable in a
// private temporary place (Source.Open into an editsession directory:
// 0700, files 0600, removed on exit and on signals), and a key's history
// across the points, found by bisection where the key's stamp allows
// (KeyHistory). It writes nothing to the store; putting a key back is the
// caller's checked, journaled write (store.Restore).
package history

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"kvdeck/internal/usertext"
)

// Point is one state of the store a source can give back.
type Point struct {
	// TXID is the source's position: a Litestream TXID, a recorded poll's
	// number; 0 for a source that gives any instant (Turso).
	TXID uint64
	// At is when the point was made, in epoch milliseconds (Litestream
	// lists it to the second). The point holds every commit made before
	// it; a commit after it is in a later point.
	At int64
	// Seq is the store's seq at the point when the source knows it
	// without restoring it (a recording); 0 when unknown.
	Seq int64
	// Gap: the source was not watching before this point (a recording
	// resumed): what changed since the point before is known only as it
	// was found here.
	Gap bool
}

// Label names a point for people: "txid 42" (Litestream), "poll 42"
// (a recording), or its time for a source of instants.
func (p Point) Label(kind string) string {
	switch {
	case p.TXID == 0:
		return usertext.FormatTimeFixed(p.At)
	case kind == KindRecord:
		return fmt.Sprintf("poll %d", p.TXID)
	}
	return fmt.Sprintf("txid %d", p.TXID)
}

// The kinds of source.
const (
	KindLitestream = "litestream"
	KindRecord     = "record"
	KindTurso      = "turso"
	KindSqld       = "sqld"
)

// Opened is a point made readable: a database URL (and the token it
// takes) holding the store as of the point, which the caller opens read
// only, and Close, which removes it (a restored file, a branch database).
type Opened struct {
	URL, Token string
	Close      func(context.Context) error
}

// Source is where a store's past is kept.
type Source interface {
	// Kind is one of the Kind constants.
	Kind() string
	// Describe names the source for people ("Litestream replica
	// file:///backups/prod").
	Describe() string
	// Points lists the points the source can give back, oldest first.
	// A source that gives any instant (Turso) returns nil and Pick takes
	// the instant asked.
	Points(ctx context.Context) ([]Point, error)
	// Open makes p readable in w (a private directory), or as a database
	// of its own for a remote source.
	Open(ctx context.Context, p Point, w Dir) (Opened, error)
	// Limits says what the source cannot know, in a sentence.
	Limits() string
}

// Dir is where restored points are written: a private directory (0700)
// whose files are 0600 and which goes when the command ends or a signal
// stops it (editsession.Session satisfies it).
type Dir interface{ Dir() string }

// ErrNoPoint: the source holds no point at or before the time asked, or
// not the TXID asked.
var ErrNoPoint = errors.New("no restore point")

// Choice is the point picked for a spec.
type Choice struct {
	// Point is the point picked.
	Point Point
	// Index is its index in the source's points (-1 for an instant of a
	// continuous source); Of is how many points the source listed.
	Index, Of int
	// Next is the first point after it, nil when it is the newest: the
	// state at the time asked lies between Point and Next.
	Next *Point
	// Asked is the spec.
	Asked Spec
}

// Pick chooses the point for spec among points (oldest first): the one
// of spec.TXID exactly, or the newest made at or before spec.At (the
// state at that time, up to the changes committed between that point and
// the time, which only the next point holds). A continuous source (points
// nil) gives the instant itself.
func Pick(points []Point, spec Spec, continuous bool) (Choice, error) {
	if continuous {
		if spec.TXID != 0 {
			return Choice{}, fmt.Errorf("%w: this source restores by time, not by txid", ErrNoPoint)
		}
		return Choice{Point: Point{At: spec.At}, Index: -1, Asked: spec}, nil
	}
	if len(points) == 0 {
		return Choice{}, fmt.Errorf("%w: the source holds none yet", ErrNoPoint)
	}
	i := -1
	if spec.TXID != 0 {
		i = sort.Search(len(points), func(k int) bool { return points[k].TXID >= spec.TXID })
		if i == len(points) || points[i].TXID != spec.TXID {
			return Choice{}, fmt.Errorf("%w at txid %d: the points run from txid %d to %d (kvdeck history lists them)", ErrNoPoint, spec.TXID, points[0].TXID, points[len(points)-1].TXID)
		}
	} else {
		i = sort.Search(len(points), func(k int) bool { return points[k].At > spec.At }) - 1
		if i < 0 {
			return Choice{}, fmt.Errorf("%w at or before %s: the oldest is %s (kvdeck history lists them)", ErrNoPoint, usertext.FormatTimeFixed(spec.At), usertext.FormatTimeFixed(points[0].At))
		}
	}
	c := Choice{Point: points[i], Index: i, Of: len(points), Asked: spec}
	if i+1 < len(points) {
		next := points[i+1]
		c.Next = &next
	}
	return c, nil
}

// Text names the choice for people: the point, when it was made, and
// where the next one is (the changes between them are not in this one).
func (c Choice) Text(kind string) string {
	if c.Index < 0 {
		return "as of " + usertext.FormatTimeFixed(c.Point.At)
	}
	s := fmt.Sprintf("%s, made %s", c.Point.Label(kind), usertext.FormatTimeFixed(c.Point.At))
	if c.Asked.TXID == 0 && c.Asked.Text != "" {
		s += fmt.Sprintf(" (the newest point at or before %s", usertext.FormatTimeFixed(c.Asked.At))
		if c.Next != nil {
			s += fmt.Sprintf("; the next, %s, is from %s", c.Next.Label(kind), usertext.FormatTimeFixed(c.Next.At))
		}
		s += ")"
	}
	return s
}
