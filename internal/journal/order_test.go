package journal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// hookJournal is the journal with hook run once a write's intent is on
// the disk and before its commit is sent: where another writer may slip
// in.
type hookJournal struct {
	*Journal
	hook func(store.PendingWrite)
}

func (h hookJournal) Unwrap() store.Recorder { return h.Journal }

func (h hookJournal) Before(ctx context.Context, w store.PendingWrite) (string, error) {
	id, err := h.Journal.Before(ctx, w)
	if err == nil {
		h.hook(w)
	}
	return id, err
}

func (h hookJournal) BeforeAll(ctx context.Context, ws []store.PendingWrite) ([]string, error) {
	ids, err := h.Journal.BeforeAll(ctx, ws)
	if err == nil {
		h.hook(ws[0])
	}
	return ids, err
}

// orderBackends are a rollback-journal file, a WAL file and a server.
func orderBackends() []storetest.Backend {
	wal := storetest.File().Named("wal")
	return []storetest.Backend{storetest.File(), wal, storetest.SQLD()}
}

// openOrder opens b's store (WAL for "wal") and a second store on the
// same database, for the other writer.
func openOrder(t *testing.T, b storetest.Backend) (s, other *store.Store) {
	t.Helper()
	url := b.URL(t)
	s = storetest.Open(t, url, store.Options{})
	other = storetest.Open(t, url, store.Options{})
	if b.Name == "wal" {
		if _, err := other.SetJournalMode(storetest.Ctx(t), store.JournalWAL); err != nil {
			t.Fatal(err)
		}
	}
	return s, other
}

// TestGuardRetriesWhenAKeyChanges: another writer changes the key between
// the read of a set's before-images (synced in its intent) and its
// commit. The commit's guard fails and nothing is written; the set is
// read again, journaled again with the other writer's row, and made. The
// journal shows the first attempt not applied, and the undo puts back
// the other writer's value, not the one first read.
func TestGuardRetriesWhenAKeyChanges(t *testing.T) {
	storetest.Each(t, orderBackends(), func(t *testing.T, b storetest.Backend) {
		ctx := storetest.Ctx(t)
		s, other := openOrder(t, b)
		k := codec.Key{codec.String("cfg")}
		if _, err := other.Set(ctx, k, []byte(`"first"`), nil); err != nil {
			t.Fatal(err)
		}
		j := openIn(t, t.TempDir(), "file:guard.db", 0)
		slipped := false
		s.SetRecorder(hookJournal{Journal: j, hook: func(store.PendingWrite) {
			if !slipped {
				slipped = true
				if _, err := other.Set(ctx, k, []byte(`"theirs"`), nil); err != nil {
					t.Error(err)
				}
			}
		}})
		if _, err := s.Set(store.WithWriteOp(ctx, "set"), k, []byte(`"mine"`), nil); err != nil {
			t.Fatal(err)
		}
		es, _, err := j.List()
		if err != nil || len(es) != 2 {
			t.Fatalf("entries %d %v: want the refused attempt and the write", len(es), err)
		}
		if e := es[0]; e.Outcome != store.OutcomeNotApplied || !strings.Contains(e.Err, "changed between") || len(e.pre) != 1 || e.pre[0].V == nil || *e.pre[0].V != `"first"` {
			t.Errorf("first attempt: %+v", e)
		}
		if e := es[1]; e.Outcome != store.OutcomeApplied || len(e.Before) != 1 || string(e.Before[0].Value) != `"theirs"` {
			t.Fatalf("the write: %+v, want it applied over theirs", e)
		}
		p, err := j.PlanUndo(ctx, s, "")
		if err != nil {
			t.Fatal(err)
		}
		if res, err := j.Undo(ctx, s, p); err != nil || !res.OK {
			t.Fatalf("undo: %+v %v", res, err)
		}
		if e, ok, err := s.Get(ctx, k); err != nil || !ok || string(e.Value) != `"theirs"` {
			t.Fatalf("after the undo: %+v %v, want theirs", e, err)
		}
	})
}

// TestGuardGivesUp: a writer that changes the key before every commit
// leaves it unmade, with ErrKeysChanging, after a bounded number of tries,
// each journaled not applied; the other writer's value stands. A user's
// own check keeps its meaning: a failed check is no retry.
func TestGuardGivesUp(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		ctx := storetest.Ctx(t)
		s, other := openOrder(t, b)
		k := codec.Key{codec.String("hot")}
		j := openIn(t, t.TempDir(), "file:hot.db", 0)
		n := 0
		s.SetRecorder(hookJournal{Journal: j, hook: func(store.PendingWrite) {
			n++
			if _, err := other.Set(ctx, k, []byte(`"theirs"`), nil); err != nil {
				t.Error(err)
			}
		}})
		_, err := s.Set(ctx, k, []byte(`"mine"`), nil)
		if !errors.Is(err, store.ErrKeysChanging) || n < 2 || n > 10 {
			t.Fatalf("set beside a writer that never stops: %v after %d tries", err, n)
		}
		es, _, _ := j.List()
		for _, e := range es {
			if e.Outcome != store.OutcomeNotApplied {
				t.Errorf("attempt %+v", e)
			}
		}
		if e, ok, _ := s.Get(ctx, k); !ok || string(e.Value) != `"theirs"` {
			t.Fatalf("the key: %+v", e)
		}
		s.SetRecorder(hookJournal{Journal: j, hook: func(store.PendingWrite) { n++ }})
		n = 0
		res, err := s.Atomic().Check(k, "").Set(k, []byte(`"mine"`)).Commit(ctx)
		if err != nil || res.OK || len(res.Failed) != 1 || n != 1 {
			t.Fatalf("a failed check: %+v %v after %d tries, want one try, the check failed", res, err, n)
		}
	})
}

// TestSweepSkipsRowsChangedAfterItsImages: rows rewritten between a
// sweep's read of its window (its images, synced) and its deletes (one
// made live again, one still expired but under a new stamp) are neither
// deleted nor claimed by the journal; the undo of the sweep puts back
// exactly the rows it deleted and leaves the rewritten ones as they are.
func TestSweepSkipsRowsChangedAfterItsImages(t *testing.T) {
	storetest.Each(t, orderBackends(), func(t *testing.T, b storetest.Backend) {
		ctx := storetest.Ctx(t)
		s, other := openOrder(t, b)
		now := s.Now()
		past := now - 1000
		var sets []store.Mutation
		for i := range 30 {
			sets = append(sets, store.Mutation{Type: store.MutationSet, Key: codec.Key{codec.String("e"), codec.Number(float64(i))}, Value: []byte(`0`), ExpiresAt: &past})
		}
		if _, err := other.SetMany(ctx, sets); err != nil {
			t.Fatal(err)
		}
		before := rowsOf(t, s)
		// Both in the first batch (on a file one commit's rows, 10).
		live, restamped := sets[3].Key, sets[7].Key
		j := openIn(t, t.TempDir(), "file:sweep.db", 0)
		once := false
		s.SetRecorder(hookJournal{Journal: j, hook: func(store.PendingWrite) {
			if once {
				return
			}
			once = true
			hour := int64(3600_000)
			later := now + hour
			if _, err := other.Commit(ctx, nil, []store.Mutation{
				{Type: store.MutationSet, Key: live, Value: []byte(`"live"`), ExpiresAt: &later},
				{Type: store.MutationSet, Key: restamped, Value: []byte(`"again"`), ExpiresAt: &past},
			}); err != nil {
				t.Error(err)
			}
		}})
		res, err := s.Sweep(store.WithWriteOp(ctx, "sweep"), store.SweepOptions{Batch: 10})
		if err != nil || res.Swept != 28 {
			t.Fatalf("sweep: %+v %v, want 28 swept", res, err)
		}
		if e, ok, err := s.Get(ctx, live); err != nil || !ok || string(e.Value) != `"live"` {
			t.Fatalf("the row made live again after the sweep: %+v %v", e, err)
		}
		if claimed := claimedRows(t, j, live, restamped); claimed != 28 {
			t.Errorf("the journal claims %d rows, want 28", claimed)
		}
		// The undo puts back the 28 rows; the two rewritten stay rewritten.
		p, err := j.PlanUndo(ctx, s, "")
		if err != nil {
			t.Fatal(err)
		}
		if res, err := j.Undo(ctx, s, p); err != nil || !res.OK || res.Restored != 28 {
			t.Fatalf("undo: %+v %v", res, err)
		}
		after := rowsOf(t, s)
		others := func(text string) string { // the rows but the two rewritten
			var out []string
			for _, l := range strings.Split(text, "\n") {
				if !strings.HasPrefix(l, fmt.Sprintf("%x ", codec.MustEncode(live))) && !strings.HasPrefix(l, fmt.Sprintf("%x ", codec.MustEncode(restamped))) {
					out = append(out, l)
				}
			}
			return strings.Join(out, "\n")
		}
		if others(after) != others(before) || !strings.Contains(after, `\"live\"`) || !strings.Contains(after, `\"again\"`) {
			t.Fatalf("after the undo:\n%s\nbefore the sweep:\n%s", after, before)
		}
	})
}

// TestSweepJournalsOddRowsExactly: a journaled sweep over rows other
// programs wrote oddly (a stamp above the store's seq, a TEXT stamp, a
// stamp of 0), among ordinary ones, and a row another writer deletes
// after the sweep read it: the sweep deletes every expired row it read
// but that one, the journal claims exactly the rows deleted, and the undo
// puts them back byte for byte while the row the other writer deleted
// stays deleted. The undo comes right after the sweep, the store's seq
// still below the odd stamp: the journal bounds the database's life by
// the seq the sweep read, not by the stamps of its images (an undo was
// refused as "another life of the database" until the service's writes
// took the seq past the odd stamp).
func TestSweepJournalsOddRowsExactly(t *testing.T) {
	storetest.Each(t, orderBackends(), func(t *testing.T, b storetest.Backend) {
		ctx := storetest.Ctx(t)
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{})
		other := storetest.Open(t, url, store.Options{})
		past := s.Now() - 1000
		var sets []store.Mutation
		for i := range 20 {
			sets = append(sets, store.Mutation{Type: store.MutationSet, Key: codec.Key{codec.String("e"), codec.Number(float64(i))}, Value: []byte(`0`), ExpiresAt: &past})
		}
		if _, err := other.SetMany(ctx, sets); err != nil {
			t.Fatal(err)
		}
		for i, ver := range []string{"0", "'x'", "3"} { // the store's seq is 1
			k := codec.MustEncode(codec.Key{codec.String("e"), codec.Number(float64(4*i) + 4.5)})
			storetest.Exec(t, url, fmt.Sprintf("INSERT INTO kv (k, v, ver, expires_at) VALUES (x'%x', '\"odd %d\"', %s, %d)", k, i, ver, past))
		}
		before := rowsOf(t, s)
		gone := sets[5].Key // in a delete with the stamp-0 row
		j := openIn(t, t.TempDir(), "file:odd.db", 0)
		once := false
		s.SetRecorder(hookJournal{Journal: j, hook: func(store.PendingWrite) {
			if !once {
				once = true
				if err := other.Delete(ctx, gone); err != nil {
					t.Error(err)
				}
			}
		}})
		// Under a prefix: windows of keys, whose deletes may walk a range.
		res, err := s.Sweep(store.WithWriteOp(ctx, "sweep"), store.SweepOptions{Prefix: codec.Key{codec.String("e")}, Batch: 8})
		if err != nil || res.Swept != 22 {
			t.Fatalf("sweep: %+v %v, want 22 swept", res, err)
		}
		if left := rowsOf(t, s); left != "" {
			t.Fatalf("rows left after the sweep:\n%s", left)
		}
		if claimed := claimedRows(t, j, gone); claimed != 22 {
			t.Errorf("the journal claims %d rows, want 22", claimed)
		}
		p, err := j.PlanUndo(ctx, s, "")
		if err != nil {
			t.Fatal(err)
		}
		if res, err := j.Undo(ctx, s, p); err != nil || !res.OK || res.Restored != 22 {
			t.Fatalf("undo: %+v %v", res, err)
		}
		var want []string
		for _, l := range strings.Split(before, "\n") {
			if !strings.HasPrefix(l, fmt.Sprintf("%x ", codec.MustEncode(gone))) {
				want = append(want, l)
			}
		}
		if after := rowsOf(t, s); after != strings.Join(want, "\n") {
			t.Fatalf("after the undo:\n%s\nwant:\n%s", after, strings.Join(want, "\n"))
		}
	})
}

// claimedRows counts the before-images j's entries claim (the rows their
// writes replaced or removed) and fails t for any of the keys not, which
// another writer changed.
func claimedRows(t *testing.T, j *Journal, not ...codec.Key) int {
	t.Helper()
	es, _, err := j.List()
	if err != nil {
		t.Fatal(err)
	}
	claimed := 0
	for _, e := range es {
		for _, r := range e.Before {
			claimed++
			k, _ := codec.Decode(r.Key)
			for _, n := range not {
				if codec.Format(k) == codec.Format(n) {
					t.Errorf("entry %s claims %s, which another writer changed", e.ID, codec.Format(k))
				}
			}
		}
	}
	return claimed
}
