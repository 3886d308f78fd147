// Package entry is the stored row Browse shows, as its parts read it: the
// head the entry read takes of the value (Row), the whole value read on
// demand (ReadWhole), and the value as text a chunk at a time, indented
// when it is JSON (Indenter, WriteIndented, Stream): the pager's stdin,
// E's file and the reader's scans. A value of any size passes through
// here without being held whole.
package entry

import (
	"context"
	"errors"
	"fmt"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views/widgets"
)

// HeadCap is what the entry read takes of a value: one byte more than the
// pane shows (widgets.ValueCap), so that a value the form could edit is
// read whole and a longer one is cut (and shown cut). What needs the
// whole value reads it on demand (ReadWhole).
const HeadCap = widgets.ValueCap + 1

// Row is the selected row as the entry read took it, handed to the
// reader and the editor.
type Row struct {
	E     store.Entry // its Value cut to HeadCap bytes when Cut
	Found bool        // the read landed and found the row
	Err   error       // the read failed
	// Size is the value's whole length; Cut, that E.Value holds only its
	// head; JSON, that the whole value is JSON.
	Size      int64
	Cut, JSON bool
}

// Read reads the physical row at raw, expired or not (Browse shows
// expired, unswept rows struck through), with at most HeadCap bytes of
// its value: one statement, and a 50 MB value costs 64 KiB.
func Read(ctx context.Context, src *store.Store, raw []byte) Row {
	h, found, err := src.GetRawHead(ctx, raw, HeadCap)
	return Row{E: h.Entry, Found: found, Err: err, Size: h.Size, Cut: h.Cut(), JSON: h.Valid()}
}

// ReadWhole reads the whole value of the row the entry pane shows cut, in
// a command, for what needs all of it (Y, E, the tree): the row must still
// be at stamp ver, or the read fails (the pane is read again first).
func ReadWhole(ctx context.Context, src *store.Store, raw []byte, ver int64) (store.Entry, error) {
	e, found, err := src.GetRaw(ctx, raw)
	switch {
	case err != nil:
		return e, err
	case !found:
		return e, errors.New("the key is gone since it was read")
	case e.Ver != ver:
		return e, fmt.Errorf("the value changed since it was read (stamp %s, now %s): select it again", codec.FormatStamp(ver), e.Versionstamp())
	}
	return e, nil
}
