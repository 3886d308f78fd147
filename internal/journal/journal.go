// Package journal is kvdeck's write journal and undo: an append-only file
// per store under $XDG_STATE_HOME/kvdeck (else ~/.local/state/kvdeck, on
// every OS) that records, for every write kvdeck makes, what it was about
// to write and then its outcome with the rows it replaced; and the checked
// inverse that undoes an entry. It implements store.Recorder.
package journal

import (
	"context"
	"errors"
	"time"

	"kvdeck/store"
)

// Entry is one journaled write, its intent and outcome joined.
type Entry struct {
	// ID is short, unique in the store's journal, and what `kvdeck undo ID`
	// takes.
	ID   string
	Time time.Time
	// Op is the user action (store.WithWriteOp), Kind the engine call.
	Op, Kind string
	// Keys are the encoded keys the write may change.
	Keys [][]byte
	// Outcome is applied, not-applied or unknown (no outcome line: the
	// process died, or the answer was lost, and it has not been settled).
	Outcome store.Outcome
	// Stamp is the versionstamp the write issued, if any.
	Stamp string
	// Before are the rows the write replaced or removed.
	Before []store.RawRow
	// After is, per key the write changed, the ver it left (0: no row).
	After map[string]int64
	// Mutations, Restores: what the write was about to do.
	Mutations []store.Mutation
	Restores  []store.RestoreOp
	// Undoes is the ID of the entry this write undid, for an undo.
	Undoes string
}

// Note names something the reader skipped (a torn or corrupt line).
type Note struct {
	File string
	Line int
	Why  string
}

// Options tune a journal.
type Options struct {
	// Dir overrides the state directory (tests); empty means XDG.
	Dir string
	// MaxBytes is the size at which the file is rotated; 0 means the
	// default.
	MaxBytes int64
}

// ErrNotUndoable: the entry cannot be undone (not applied, nothing to
// restore, or its before-images are unknown).
var ErrNotUndoable = errors.New("not undoable")

// Journal is one store's journal file.
type Journal struct{}

// Open opens (creating 0700/0600 as needed) the journal of the store at
// storeURL (identified by the URL without credentials).
func Open(storeURL string, opts Options) (*Journal, error) {
	return nil, errors.New("journal: not implemented yet")
}

// Of is the journal attached to s (store.SetRecorder), nil when its
// writes are not journaled (read-only, --no-journal, the race and demo
// workloads).
func Of(s *store.Store) *Journal {
	j, _ := s.Recorder().(*Journal)
	return j
}

// Path is the journal file's path.
func (j *Journal) Path() string { return "" }

// Before implements store.Recorder.
func (j *Journal) Before(ctx context.Context, w store.PendingWrite) (string, error) {
	return "", errors.New("journal: not implemented yet")
}

// After implements store.Recorder.
func (j *Journal) After(ctx context.Context, id string, r store.WriteResult) {}

// List reads every entry, oldest first, with notes for what was skipped.
func (j *Journal) List() ([]Entry, []Note, error) {
	return nil, nil, errors.New("journal: not implemented yet")
}

// Settle reads the keys of every entry whose outcome is unknown and
// records what it finds (applied or not applied).
func (j *Journal) Settle(ctx context.Context, s *store.Store) error {
	return errors.New("journal: not implemented yet")
}

// Plan is the inverse of an entry, to preview before it is made.
type Plan struct {
	Entry Entry
	// Ops is the checked inverse, one store.RestoreOp per key.
	Ops []store.RestoreOp
	// Now is each key's physical row now (nil: none), read for the preview.
	Now map[string]*store.RawRow
	// Conflicts are keys changed since the entry's write: the undo would
	// be refused.
	Conflicts []store.RestoreConflict
}

// PlanUndo builds the inverse of entry id ("" = the last applied entry
// not yet undone), reading the keys' rows now for the preview.
func (j *Journal) PlanUndo(ctx context.Context, s *store.Store, id string) (Plan, error) {
	return Plan{}, errors.New("journal: not implemented yet")
}

// Undo makes p's inverse as one store.Restore (journaled as an entry that
// undoes p.Entry).
func (j *Journal) Undo(ctx context.Context, s *store.Store, p Plan) (store.RestoreResult, error) {
	return store.RestoreResult{}, errors.New("journal: not implemented yet")
}
