// Package journal is kvdeck's write journal and undo: an append-only file
// per store under $XDG_STATE_HOME/kvdeck (else ~/.local/state/kvdeck, on
// every OS) that records, for every write kvdeck makes, what it was about
// to write and then its outcome with the rows it replaced; and the checked
// inverse that undoes an entry. It implements store.Recorder.
//
// The file is JSON lines, each with its checksum (line.go); two lines per
// write: an intent before anything is sent and an outcome after. List
// joins them into Entries; Settle reads the keys of an entry whose
// outcome never came; PlanUndo and Undo build and make the inverse as one
// store.Restore.
package journal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"kvdeck/codec"
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
	// Setting is the store-level setting the write changed (setting.go),
	// nil for a write of rows.
	Setting *store.SettingChange

	// Checks are the commit's checks.
	Checks []store.Check
	// BeforeUnknown: the write applied but the rows it replaced are not
	// known (its answer was lost, or Settle found it applied): it cannot
	// be undone.
	BeforeUnknown bool
	// Settled: the outcome was found by reading the keys (Settle), not
	// told by the process that wrote.
	Settled bool
	// Err is the write's error as its process reported it.
	Err string
	// UndoneBy is the ID of the applied undo that reverted this entry.
	UndoneBy string
	// PID and Host are the process that wrote.
	PID  int
	Host string

	// ended: an outcome line was read (the writer's, even "unknown", or
	// a settlement): the write is no longer in flight.
	ended bool
}

// Note names something the reader skipped (a torn or corrupt line).
type Note struct {
	File string
	Line int
	Why  string
}

// String is the note as one line: "FILE:LINE: why".
func (n Note) String() string { return fmt.Sprintf("%s:%d: %s", n.File, n.Line, n.Why) }

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

// Journal is one store's journal file. Its methods are safe for
// concurrent use; several processes may append to one file.
type Journal struct {
	dir, path string
	maxBytes  int64
	host      string

	mu       sync.Mutex
	prepared bool
	pending  map[string]bool // ids whose outcome this process has not written yet
	err      error           // the first outcome line that could not be written
}

// Open opens (creating 0700/0600 as needed) the journal of the store at
// storeURL (identified by the URL without credentials). Nothing is
// created until the first write is recorded: opening a journal for a
// session that never writes leaves the state directory as it was.
func Open(storeURL string, opts Options) (*Journal, error) {
	id, slug, err := storeIdentity(storeURL)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	dir := opts.Dir
	if dir == "" {
		if dir, err = StateDir(os.Getenv); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
	}
	max := opts.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	host, _ := os.Hostname()
	return &Journal{dir: dir, path: filepath.Join(dir, fileName(id, slug)), maxBytes: max, host: host, pending: map[string]bool{}}, nil
}

// Of is the journal attached to s (store.SetRecorder), nil when its
// writes are not journaled (read-only, --no-journal, the race and demo
// workloads).
func Of(s *store.Store) *Journal {
	j, _ := s.Recorder().(*Journal)
	return j
}

// Path is the journal file's path.
func (j *Journal) Path() string { return j.path }

// Err is the first error met writing an outcome line (After cannot
// return one): that write's entry stays without an outcome until Settle
// reads its keys. nil when every line was written.
func (j *Journal) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// undoKey carries, in the context of an undo's Restore, the ID it undoes.
type undoKey struct{}

// Before implements store.Recorder: it appends the intent line. An error
// (naming the file; the store wraps it in store.ErrJournal) stops the
// write.
func (j *Journal) Before(ctx context.Context, w store.PendingWrite) (string, error) {
	id := newID()
	op := w.Op
	if op == "" {
		op = store.WriteOp(ctx)
	}
	undoes, _ := ctx.Value(undoKey{}).(string)
	rec := record{T: recIntent, ID: id, At: nowMS(), Host: j.host, PID: os.Getpid(),
		Op: op, Kind: w.Kind, Undoes: undoes}
	for _, k := range w.Keys {
		rec.Keys = append(rec.Keys, hex.EncodeToString(k))
	}
	for _, c := range w.Checks {
		enc, err := codec.Encode(c.Key)
		if err != nil {
			return "", fmt.Errorf("%s: check key: %w", j.path, err)
		}
		rec.Checks = append(rec.Checks, checkRec{K: hex.EncodeToString(enc), Stamp: c.Versionstamp})
	}
	for _, m := range w.Mutations {
		mr, err := newMutRec(m)
		if err != nil {
			return "", fmt.Errorf("%s: mutation key: %w", j.path, err)
		}
		rec.Muts = append(rec.Muts, mr)
	}
	for _, o := range w.Restores {
		rec.Restores = append(rec.Restores, newRestoreRec(o))
	}
	rec.Setting = newSettingRec(w.Setting)
	line, err := formatLine(rec)
	if err != nil {
		return "", fmt.Errorf("%s: %w", j.path, err)
	}
	if err := j.appendLine(line); err != nil {
		return "", fmt.Errorf("%s: %w", j.path, err)
	}
	j.mu.Lock()
	j.pending[id] = true
	j.mu.Unlock()
	return id, nil
}

// After implements store.Recorder: it appends the outcome line. When
// that fails the entry stays without an outcome (Settle finds it later)
// and Err reports why.
func (j *Journal) After(ctx context.Context, id string, r store.WriteResult) {
	rec := record{T: recOutcome, ID: id, At: nowMS(), Outcome: string(r.Outcome),
		Stamp: r.Stamp, BeforeUnknown: r.BeforeUnknown}
	if rec.Outcome == "" {
		rec.Outcome = string(store.OutcomeUnknown)
	}
	for _, b := range r.Before {
		rec.Before = append(rec.Before, newRowRec(b))
	}
	if r.Err != nil {
		rec.Err = r.Err.Error()
	}
	err := j.writeRecord(rec)
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.pending, id)
	if err != nil && j.err == nil {
		j.err = fmt.Errorf("the journal %s could not record the outcome of write %s: %w", j.path, id, err)
	}
}

// writeRecord formats and appends one line.
func (j *Journal) writeRecord(rec record) error {
	line, err := formatLine(rec)
	if err != nil {
		return err
	}
	return j.appendLine(line)
}

// inFlight reports whether an entry without an outcome line may still be
// waiting for its answer: its process (on this machine) is alive. An
// entry whose writer said "unknown" is over: it gave up waiting.
func (j *Journal) inFlight(e Entry) bool {
	if e.ended {
		return false
	}
	j.mu.Lock()
	mine := j.pending[e.ID]
	j.mu.Unlock()
	if mine {
		return true
	}
	if e.Host != j.host || e.PID == os.Getpid() {
		return false
	}
	return alive(e.PID)
}

// idAlphabet spells IDs: lower case, no i, l, o, u.
const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// newID is eight random characters (40 bits): short to type, and two
// entries of one journal sharing one is about one chance in ten
// thousand at 20,000 entries; undo refuses an ambiguous ID anyway.
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = idAlphabet[b[i]&31]
	}
	return string(b[:])
}

// nowMS is the wall clock in epoch milliseconds: journal times are when
// kvdeck wrote, not the store's (virtual) clock.
func nowMS() int64 { return time.Now().UnixMilli() }
