package store

import (
	"context"
	"errors"
	"sync"
)

// The write journal's hook. Every write the engine makes (Commit and
// TryCommit, Delete, DeleteRaw, SetMany, the sweep's deletes, Restore,
// SetJournalMode) tells the store's Recorder, when one is set, what it is
// about to do before it sends anything, with the rows of its keys as a
// read just before found them (its before-images), and how it ended
// afterwards. The write is then made only if every key still has the
// stamp, or the absence, that read saw (a guard in its own transaction):
// the images the Recorder put on the disk are exactly what the commit
// replaced. The engine knows nothing of files: internal/journal is the
// Recorder kvdeck's front ends attach.

// Outcome is how a journaled write ended.
type Outcome string

// The outcomes of a write.
const (
	// OutcomeApplied: the write committed.
	OutcomeApplied Outcome = "applied"
	// OutcomeNotApplied: nothing was written (a failed check, an error the
	// server answered, nothing sent).
	OutcomeNotApplied Outcome = "not-applied"
	// OutcomeUnknown: the request left but its answer did not come
	// (ErrOutcomeUnknown); reading the keys settles it later.
	OutcomeUnknown Outcome = "unknown"
)

// RawRow is one physical row as a write found it, by its encoded key: the
// before-image an undo puts back byte for byte (Value is the v column as
// stored, not re-normalised; ExpiresAt nil is no expiry).
type RawRow struct {
	Key       []byte
	Value     []byte
	Ver       int64
	ExpiresAt *int64
}

// PendingWrite is what a write is about to do, told to the Recorder before
// anything is sent.
type PendingWrite struct {
	// Op is the user action behind the write (WithWriteOp), e.g. "set",
	// "sweep", "browse: edit"; empty when the caller named none.
	Op string
	// Action is the user action the write belongs to (WithWriteOp,
	// WithAction): every write of one command or key shares it, so the
	// journal undoes them as one. Nil when the caller named none: the
	// write is an action of its own.
	Action *Action
	// Kind is the engine call: "commit", "delete", "delete-raw",
	// "set-many", "sweep", "restore", "journal-mode".
	Kind string
	// Keys are the encoded keys the write may change, in the order of its
	// mutations, each once.
	Keys [][]byte
	// Checks and Mutations are the commit's (Commit, TryCommit, SetMany;
	// Delete is one delete mutation). A sweep batch and DeleteRaw have
	// none: they delete Keys where their condition still holds.
	Checks    []Check
	Mutations []Mutation
	// Restores are a Restore's operations.
	Restores []RestoreOp
	// Setting is the store-level setting a write that touches no row
	// changes (Kind "journal-mode": SetJournalMode); nil otherwise.
	Setting *SettingChange
	// Imaged: Before holds the rows of Keys as they stood before the
	// write was sent, a key not in it having no row (every write of rows;
	// not a Setting). The write is made only if each key still has that
	// row's stamp, or still no row, in its own transaction; otherwise
	// nothing is written and the attempt ends not applied. The Recorder
	// must have put them on the disk when Before returns: they are the
	// undo's before-images, and a commit must never precede them.
	Imaged bool
	Before []RawRow
	// Seq, when not zero, is kv_meta's seq as Before was read (a sweep's
	// windows read it with their rows): the store's seq never goes below
	// it in this life of the database. The stamps of Before are no such
	// bound: another program may have stamped a row above the seq.
	Seq int64
}

// A BatchRecorder records several writes with one sync: a sweep's delete
// commits of one window. BeforeAll records the writes' intents (images
// included) as Before does, in order, and puts them on the disk with one
// sync before it returns. The outcomes of those writes (After) may stay
// in the operating system's cache until the next BeforeAll or Sync: a
// lost outcome line leaves an intent whose images are on the disk, which
// settling reads. The store calls Sync before it reports the action.
type BatchRecorder interface {
	Recorder
	BeforeAll(ctx context.Context, ws []PendingWrite) (ids []string, err error)
	Sync() error
}

// WriteResult is how a write ended, told to the Recorder after it.
type WriteResult struct {
	Outcome Outcome
	// Stamp is the versionstamp the write issued (a commit with a set, a
	// SetMany, a Restore that puts a row); empty otherwise.
	Stamp string
	// Before holds the rows the write replaced or removed: for an Imaged
	// write that applied, its PendingWrite.Before, less Kept. Empty
	// unless Outcome is OutcomeApplied.
	Before []RawRow
	// Kept are the keys of PendingWrite.Before rows the write left in
	// place though it applied (a sweep's delete skips a row rewritten
	// since its window was read): they are no part of its undo.
	Kept [][]byte
	// BeforeUnknown is set when the write applied but its before-images
	// were lost with its answer (a commit settled by reading after a lost
	// answer): such an entry cannot be undone.
	BeforeUnknown bool
	// Err is the write's error, if any.
	Err error
}

// Recorder journals writes. Before is called before a write is sent; when
// it returns an error the write is not made and that error (wrapping
// ErrJournal) is returned. After is called exactly once for every Before
// that succeeded.
type Recorder interface {
	Before(ctx context.Context, w PendingWrite) (id string, err error)
	After(ctx context.Context, id string, r WriteResult)
}

// ErrJournal wraps a Recorder's refusal to record a write: the write was
// not made.
var ErrJournal = errors.New("the write journal could not record the write")

// SetRecorder attaches r to the store (nil detaches). Call it before the
// store is shared between goroutines.
func (s *Store) SetRecorder(r Recorder) { s.recorder = r }

// Recorder is the store's Recorder, nil when none is set.
func (s *Store) Recorder() Recorder { return s.recorder }

type writeOpKey struct{}

// Action is one user action: what one command or one key did, however
// many writes it took (a sweep's batches, an alarm fire's claim, lease
// and clear). The front ends start one per command or key (WithWriteOp)
// and every write made with that context joins it; the engine needs no
// change per command. A non-row step of an action (a journal mode
// switched and back) is told to the Recorder as a PendingWrite of its
// own Kind under the same Action.
type Action struct {
	// Op names the action for the journal ("set", "lease break").
	Op string

	once sync.Once
	id   string
}

// NewAction starts a user action named op. Writes join it through
// WithAction.
func NewAction(op string) *Action { return &Action{Op: op} }

// ID is the action's identifier, chosen by name on the first call (the
// Recorder names actions; the engine does not): every later call returns
// the same.
func (a *Action) ID(name func() string) string {
	a.once.Do(func() { a.id = name() })
	return a.id
}

// WithAction makes the writes made with ctx join action a.
func WithAction(ctx context.Context, a *Action) context.Context {
	return context.WithValue(ctx, writeOpKey{}, a)
}

// WithWriteOp starts a user action named op ("set", "lease break",
// "browse: edit"): every write made with ctx, or a context derived from
// it, joins that one action in the journal, until a derived context
// starts another.
func WithWriteOp(ctx context.Context, op string) context.Context {
	return WithAction(ctx, NewAction(op))
}

// ActionOf is the action of ctx's writes, nil when none was started.
func ActionOf(ctx context.Context) *Action {
	a, _ := ctx.Value(writeOpKey{}).(*Action)
	return a
}

// WriteOp is the action named by WithWriteOp, or "".
func WriteOp(ctx context.Context) string {
	if a := ActionOf(ctx); a != nil {
		return a.Op
	}
	return ""
}

// RestoreOp is one key of a Restore: the physical row expected now, and
// what to put in its place.
type RestoreOp struct {
	// Key is the encoded key.
	Key []byte
	// ExpectVer is the ver of the physical row that must be there now
	// (expired or not: the check is on the row, not on its liveness); 0
	// means no row may be there.
	ExpectVer int64
	// Put is the row to write back: its Key, Value (stored as is) and
	// ExpiresAt (kept even when already past: a swept row comes back
	// expired-but-present); its Ver is ignored, the row gets the Restore's
	// new stamp. Nil deletes the row.
	Put *RawRow
	// Found is the row at ExpectVer as the caller read it (an undo's
	// check), nil when not read: when every op expecting a row has it,
	// the Restore's before-images are known and its keys are not read
	// again (one request less over a server).
	Found *RawRow
}

// RestoreConflict is a key whose row is not the one a Restore expected.
type RestoreConflict struct {
	Key       []byte
	ExpectVer int64
	// Found is the row there now; nil when there is none.
	Found *RawRow
}

// RestoreResult is the outcome of a Restore.
type RestoreResult struct {
	// OK is false when a key was not as expected; then nothing was written.
	OK bool
	// Versionstamp is the stamp of the put rows; empty when nothing was put.
	Versionstamp string
	// Conflicts lists, when OK is false, the keys not as expected, re-read
	// after the refusal (best effort, as Commit's Failed).
	Conflicts []RestoreConflict
	// SeqBelow is, for a RestoreAt refused because the store's seq is
	// below its minSeq (another life of the database), that seq; 0
	// otherwise.
	SeqBelow int64
}
