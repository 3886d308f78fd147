// Package journal is kvdeck's write journal and undo: an append-only file
// per store under $XDG_STATE_HOME/kvdeck (else ~/.local/state/kvdeck, on
// every OS) that records, for every write kvdeck makes, what it was about
// to write with the rows it will replace (synced before the commit is
// sent), then its outcome; and the checked inverse that undoes an entry.
// It implements store.Recorder and store.BatchRecorder.
//
// The file is JSON lines, each with its checksum (line.go); two lines per
// write: an intent before anything is sent and an outcome after. List
// joins them into Entries; Settle reads the keys of an entry whose
// outcome never came; PlanUndo and Undo build and make the inverse as one
// store.Restore.
package journal

import (
	"bytes"
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

// Entry is one journaled write, its intent and outcome joined. The writes
// of one user action share its Act (Action groups them).
type Entry struct {
	// ID is short and unique in the store's journal.
	ID string
	// Act is the ID of the user action the write belongs to (the ID
	// `kvdeck undo` takes); a write of an older kvdeck is an action of its
	// own (Act == ID).
	Act  string
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
	// Mutations, Restores: what the write was about to do. A set's value
	// longer than the journal writes out is nil here; its hash is in
	// hashes.
	Mutations []store.Mutation
	Restores  []store.RestoreOp
	// Undoes is the ID of the action this write takes back (an undo, or
	// a redo: the undo of an undo); an entry ID for an older kvdeck's.
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
	// told by the process that wrote; Why says what was found.
	Settled bool
	Why     string
	// Err is the write's error as its process reported it.
	Err string
	// PID and Host are the process that wrote.
	PID  int
	Host string
	// Life numbers the database's lives the journal saw, from 0: a new one
	// starts where a write's stamp is not above every stamp seen before
	// it (the database was recreated, or copied back from an older file).
	Life int

	// hashes are, per mutation, the hash of a value journaled by its hash.
	hashes []string
	// from are, per restore, the entry whose before-image it puts back;
	// of are, per before-image, the entry whose before-image holds its
	// value (both resolved into Restores and Before by resolve).
	from, of []string
	// unresolved: a row this entry refers to is no longer in the journal.
	unresolved bool
	// bound is the highest stamp the journal had recorded (outcome stamps,
	// before-images' vers) when this entry's intent was written: every
	// row at a ver up to it was there before the write began.
	bound int64
	// seq is the store's seq as the intent's images were read (0: not
	// recorded): the bound its images give the database's life, which
	// their stamps are not when another program stamped a row above the
	// seq.
	seq int64
	// pre are the before-images its intent recorded (an imaged write's),
	// as written: Before once an outcome says it applied.
	pre    []rowRec
	imaged bool
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
	// MaxBytes is the size past which the file is compacted (retain.go);
	// 0 means DefaultMaxBytes.
	MaxBytes int64
	// Now and NewID replace the wall clock and the random IDs (tests that
	// compare screens); nil means the real ones.
	Now   func() time.Time
	NewID func() string
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
	now       func() time.Time
	newID     func() string

	mu       sync.Mutex
	prepared bool
	unsynced bool                    // lines were appended unsynced since the last sync
	pending  map[string]pendingWrite // writes whose outcome this process has not written yet
	err      error                   // the first outcome line that could not be written
	acts     map[string]bool         // actions this process has written to: compaction never drops them
	notices  []string                // what compaction dropped, for the command to say

	// batch is BeforeAll's buffer of lines, kept for the next batch
	// (batchMu held from the first line to the write): a sweep's batch is
	// megabytes, which a fresh buffer zeroes and grows by copying.
	batchMu sync.Mutex
	batch   []byte
}

// keptBatchBytes bounds the buffer a Journal keeps between BeforeAlls.
const keptBatchBytes = 32 << 20

// pendingWrite is what the journal remembers of a write in flight.
type pendingWrite struct {
	// imaged: its intent holds its before-images (store.PendingWrite
	// Imaged), so its outcome names only the rows it left in place.
	imaged bool
	// deferred: one of a BeforeAll's writes, whose outcome line may stay
	// unsynced until the next BeforeAll or Sync.
	deferred bool
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
	j := &Journal{dir: dir, path: filepath.Join(dir, fileName(id, slug)), maxBytes: max, host: host,
		now: opts.Now, newID: opts.NewID, pending: map[string]pendingWrite{}, acts: map[string]bool{}}
	if j.now == nil {
		j.now = time.Now
	}
	if j.newID == nil {
		j.newID = randomID
	}
	return j, nil
}

// Of is the journal attached to s (store.SetRecorder), nil when its
// writes are not journaled (read-only, --no-journal, the race and demo
// workloads).
func Of(s *store.Store) *Journal {
	r := s.Recorder()
	for range 8 {
		if w, ok := r.(interface{ Unwrap() store.Recorder }); ok {
			r = w.Unwrap() // a Recorder wrapped around the journal (tests)
			continue
		}
		break
	}
	j, _ := r.(*Journal)
	return j
}

// Path is the journal file's path.
func (j *Journal) Path() string { return j.path }

// Err is the first error met writing an outcome line (After cannot
// return one): that write's entry stays without an outcome until Settle
// reads its keys, and cannot be undone. nil when every line was written.
func (j *Journal) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// Notices are what this process's writes made the journal drop to stay
// within its size (retain.go), one line each, for the command to say:
// the actions named can no longer be undone.
func (j *Journal) Notices() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.notices...)
}

// undoKey carries, in the context of an undo's or a redo's Restores,
// what the journal needs to record them compactly (undoing).
type undoKey struct{}

// undoing is what an undo tells its journal: the action it takes back,
// and per key where the rows it puts back and finds are already recorded.
type undoing struct {
	target string
	// from: per key, the entry whose before-image the restore puts back.
	from map[string]string
	// left: per key, the row the undo expects to find (the one the target
	// left), when an entry's before-image already records it.
	left map[string]leftRow
}

// leftRow is a row recorded as entry id's before-image.
type leftRow struct {
	id  string
	row store.RawRow
}

// Before implements store.Recorder: it appends the intent line, with the
// write's before-images, and syncs it to the disk. An error (naming the
// file; the store wraps it in store.ErrJournal) stops the write.
func (j *Journal) Before(ctx context.Context, w store.PendingWrite) (string, error) {
	id, act, line, err := j.intent(ctx, w, nil)
	if err != nil {
		return "", err
	}
	if err := j.appendIntent(act, line, true); err != nil {
		return "", fmt.Errorf("%s: %w", j.path, err)
	}
	j.mu.Lock()
	j.pending[id] = pendingWrite{imaged: w.Imaged}
	j.mu.Unlock()
	return id, nil
}

// BeforeAll implements store.BatchRecorder: the intent lines of ws, in
// one append and one sync. Their outcome lines are left unsynced, until
// the next sync (BeforeAll's or Sync's).
func (j *Journal) BeforeAll(ctx context.Context, ws []store.PendingWrite) ([]string, error) {
	ids := make([]string, len(ws))
	j.batchMu.Lock()
	defer j.batchMu.Unlock()
	lines := j.batch[:0]
	defer func() {
		if cap(lines) <= keptBatchBytes {
			j.batch = lines[:0]
		}
	}()
	act := ""
	for i, w := range ws {
		id, a, more, err := j.intent(ctx, w, lines)
		if err != nil {
			return nil, err
		}
		if act == "" {
			act = a
		}
		ids[i], lines = id, more
	}
	if len(lines) > 0 {
		if err := j.appendIntent(act, lines, true); err != nil {
			return nil, fmt.Errorf("%s: %w", j.path, err)
		}
	}
	j.mu.Lock()
	for i, id := range ids {
		j.pending[id] = pendingWrite{imaged: ws[i].Imaged, deferred: true}
	}
	j.mu.Unlock()
	return ids, nil
}

// intent appends w's intent line, under a new id, to dst; act is its action.
func (j *Journal) intent(ctx context.Context, w store.PendingWrite, dst []byte) (id, act string, line []byte, err error) {
	id = j.newID()
	op := w.Op
	if op == "" {
		op = store.WriteOp(ctx)
	}
	act = id
	if a := w.Action; a != nil {
		act = a.ID(j.newID)
	}
	u, _ := ctx.Value(undoKey{}).(*undoing)
	rec := record{T: recIntent, ID: id, Act: act, At: j.nowMS(), Host: j.host, PID: os.Getpid(),
		Op: op, Kind: w.Kind, Imaged: w.Imaged, Seq: w.Seq}
	if u != nil {
		rec.Undoes = u.target
	}
	if len(w.Mutations) == 0 && len(w.Restores) == 0 && !imagesAreKeys(w) {
		// Otherwise the keys are those of the mutations or restores, or
		// of the before-images when every key has one (a sweep's).
		rec.raw.keys = w.Keys
	}
	for _, c := range w.Checks {
		enc, err := codec.Encode(c.Key)
		if err != nil {
			return "", "", nil, fmt.Errorf("%s: check key: %w", j.path, err)
		}
		rec.Checks = append(rec.Checks, checkRec{K: hex.EncodeToString(enc), Stamp: c.Versionstamp})
	}
	for _, m := range w.Mutations {
		mr, err := newMutRec(m)
		if err != nil {
			return "", "", nil, fmt.Errorf("%s: mutation key: %w", j.path, err)
		}
		rec.Muts = append(rec.Muts, mr)
	}
	for _, o := range w.Restores {
		from := ""
		if u != nil {
			from = u.from[string(o.Key)]
		}
		rec.Restores = append(rec.Restores, newRestoreRec(o, from))
	}
	rec.Setting = newSettingRec(w.Setting)
	if u != nil {
		rec.Pre = imageRecs(u, w.Before)
	} else {
		rec.raw.pre = w.Before
	}
	line, err = appendLine(dst, rec)
	if err != nil {
		return "", "", nil, fmt.Errorf("%s: %w", j.path, err)
	}
	return id, act, line, nil
}

// imagesAreKeys reports whether w's before-images are one for each of
// its keys, in order.
func imagesAreKeys(w store.PendingWrite) bool {
	if !w.Imaged || len(w.Before) != len(w.Keys) {
		return false
	}
	for i, r := range w.Before {
		if !bytes.Equal(r.Key, w.Keys[i]) {
			return false
		}
	}
	return true
}

// imageRecs records rows as before-images. An undo finds the rows the
// action it takes back left; when an entry already records one, they
// name it instead of writing it again.
func imageRecs(u *undoing, rows []store.RawRow) []rowRec {
	var out []rowRec
	for _, b := range rows {
		row := newRowRec(b)
		if u != nil {
			if l, ok := u.left[string(b.Key)]; ok && sameRow(&l.row, &b) {
				row = rowRec{K: row.K, Ver: b.Ver, Of: l.id}
			}
		}
		out = append(out, row)
	}
	return out
}

// After implements store.Recorder: it appends the outcome line (an
// imaged write's names only the rows it left in place; its images are
// in its intent). When that fails the entry stays without an outcome
// (Settle finds it later) and Err reports why.
func (j *Journal) After(ctx context.Context, id string, r store.WriteResult) {
	j.mu.Lock()
	p := j.pending[id]
	j.mu.Unlock()
	rec := record{T: recOutcome, ID: id, At: j.nowMS(), Outcome: string(r.Outcome),
		Stamp: r.Stamp, BeforeUnknown: r.BeforeUnknown}
	if rec.Outcome == "" {
		rec.Outcome = string(store.OutcomeUnknown)
	}
	if p.imaged {
		if r.Outcome == store.OutcomeApplied {
			for _, k := range r.Kept {
				rec.Kept = append(rec.Kept, hex.EncodeToString(k))
			}
		}
	} else {
		u, _ := ctx.Value(undoKey{}).(*undoing)
		rec.Before = imageRecs(u, r.Before)
	}
	if r.Err != nil {
		rec.Err = r.Err.Error()
	}
	err := j.writeRecord(rec, !p.deferred)
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.pending, id)
	if err != nil && j.err == nil {
		j.err = fmt.Errorf("the journal %s could not record the outcome of write %s (%s): it cannot be undone, and its entry stays of unknown outcome until it is settled by reading its keys: %w", j.path, id, r.Outcome, err)
	}
}

// writeRecord formats and appends one line, synced to the disk when sync.
func (j *Journal) writeRecord(rec record, sync bool) error {
	line, err := formatLine(rec)
	if err != nil {
		return err
	}
	return j.appendLine(line, sync)
}

// inFlight reports whether an entry without an outcome line may still be
// waiting for its answer: its process (on this machine) is alive. An
// entry whose writer said "unknown" is over: it gave up waiting.
func (j *Journal) inFlight(e Entry) bool {
	if e.ended {
		return false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.inFlightLocked(e)
}

// inFlightLocked is inFlight with j.mu held (compaction holds it).
func (j *Journal) inFlightLocked(e Entry) bool {
	if e.ended {
		return false
	}
	if _, ok := j.pending[e.ID]; ok {
		return true
	}
	if e.Host != j.host || e.PID == os.Getpid() {
		return false
	}
	return alive(e.PID)
}

// idAlphabet spells IDs: lower case, no i, l, o, u.
const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// randomID is eight random characters (40 bits): short to type, and two
// entries of one journal sharing one is about one chance in ten
// thousand at 20,000 entries; undo refuses an ambiguous ID anyway.
func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = idAlphabet[b[i]&31]
	}
	return string(b[:])
}

// nowMS is the wall clock in epoch milliseconds: journal times are when
// kvdeck wrote, not the store's (virtual) clock.
func (j *Journal) nowMS() int64 { return j.now().UnixMilli() }
