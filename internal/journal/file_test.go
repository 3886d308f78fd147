package journal

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/store"
)

// openIn is a journal of storeURL in dir.
func openIn(t *testing.T, dir, storeURL string, max int64) *Journal {
	t.Helper()
	j, err := Open(storeURL, Options{Dir: dir, MaxBytes: max})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// record1 journals one applied set of key ["k", n] (intent and outcome).
func record1(t *testing.T, j *Journal, n int) string {
	t.Helper()
	k := codec.Key{codec.String("k"), codec.Number(float64(n))}
	enc := codec.MustEncode(k)
	id, err := j.Before(context.Background(), store.PendingWrite{Op: "set", Kind: "commit", Keys: [][]byte{enc},
		Mutations: []store.Mutation{{Type: store.MutationSet, Key: k, Value: []byte(fmt.Sprint(n))}}})
	if err != nil {
		t.Fatal(err)
	}
	j.After(context.Background(), id, store.WriteResult{Outcome: store.OutcomeApplied, Stamp: codec.FormatStamp(int64(n + 1))})
	return id
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestStateDir: XDG_STATE_HOME when absolute, else ~/.local/state, on
// every OS; neither is an error.
func TestStateDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/home/u"}, "/x/state/kvdeck"},
		{map[string]string{"XDG_STATE_HOME": "rel/state", "HOME": "/home/u"}, "/home/u/.local/state/kvdeck"},
		{map[string]string{"HOME": "/home/u"}, "/home/u/.local/state/kvdeck"},
	}
	for _, c := range cases {
		if got, err := StateDir(env(c.env)); err != nil || got != c.want {
			t.Errorf("%v: %q %v; want %q", c.env, got, err, c.want)
		}
	}
	if _, err := StateDir(env(nil)); err == nil {
		t.Error("no HOME, no XDG_STATE_HOME: no error")
	}
}

// TestFileNames: one file per store, whatever spelling of its URL; other
// stores get other files; the name is readable and carries no secret.
func TestFileNames(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	abs := filepath.Join(wd, "x.db")
	same := [][]string{
		{"file:x.db", "x.db", "./x.db", "file://" + abs, abs},
		{"http://127.0.0.1:8080", "ws://127.0.0.1:8080", "http://127.0.0.1:8080/", "HTTP://127.0.0.1:8080"},
		{"libsql://db.example.com", "https://db.example.com", "wss://db.example.com:443"},
	}
	var names []string
	for _, group := range same {
		first := openIn(t, dir, group[0], 0).Path()
		for _, u := range group[1:] {
			if p := openIn(t, dir, u, 0).Path(); p != first {
				t.Errorf("%s: %s; %s: %s", group[0], first, u, p)
			}
		}
		names = append(names, first)
	}
	if names[0] == names[1] || names[1] == names[2] || openIn(t, dir, "file:y.db", 0).Path() == names[0] {
		t.Errorf("different stores share a journal: %v", names)
	}
	if base := filepath.Base(names[0]); !strings.HasPrefix(base, "x.db-") || !strings.HasSuffix(base, ".jsonl") {
		t.Errorf("file name %s: want x.db-HASH.jsonl", base)
	}
	if base := filepath.Base(names[1]); !strings.HasPrefix(base, "127.0.0.1_8080-") {
		t.Errorf("file name %s: want 127.0.0.1_8080-HASH.jsonl", base)
	}
	if _, err := Open("http://user:secret@h", Options{Dir: dir}); err == nil {
		t.Error("a URL with credentials opened a journal")
	}
}

// TestModes: the directory is made 0700 and the file 0600 (whatever the
// umask); a directory and files left wider are narrowed on the first
// write; nothing is created until a write is recorded.
func TestModes(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state", "kvdeck")
	j := openIn(t, state, "file:m.db", 0)
	if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open created %s: %v", state, err)
	}
	record1(t, j, 1)
	if m := mode(t, state); m != 0o700 {
		t.Errorf("dir %v; want 0700", m)
	}
	if m := mode(t, j.Path()); m != 0o600 {
		t.Errorf("file %v; want 0600", m)
	}
	// Widened by hand or an older kvdeck: narrowed by the next process.
	if err := os.Chmod(state, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(j.Path(), 0o644); err != nil {
		t.Fatal(err)
	}
	record1(t, openIn(t, state, "file:m.db", 0), 2)
	if m := mode(t, state); m != 0o700 {
		t.Errorf("dir after narrowing %v; want 0700", m)
	}
	if m := mode(t, j.Path()); m != 0o600 {
		t.Errorf("file after narrowing %v; want 0600", m)
	}
}

// TestUnwritable: a journal that cannot be written (here its directory
// cannot be made: a file stands in its parent's place, which stops root
// too) refuses the write and names the file.
func TestUnwritable(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "state")
	if err := os.WriteFile(parent, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	j := openIn(t, filepath.Join(parent, "kvdeck"), "file:u.db", 0)
	_, err := j.Before(context.Background(), store.PendingWrite{Kind: "commit"})
	if err == nil || !strings.Contains(err.Error(), j.Path()) {
		t.Fatalf("Before: %v; want an error naming %s", err, j.Path())
	}
}

// TestTornLine: a line cut short (a crash mid-write) is skipped and named
// (file and line); a good line appended after it on the same line is
// kept; the other entries read on.
func TestTornLine(t *testing.T) {
	dir := t.TempDir()
	j := openIn(t, dir, "file:t.db", 0)
	a := record1(t, j, 1)
	f, err := os.OpenFile(j.Path(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := formatLine(record{T: recIntent, ID: "torn0000", Kind: "commit"})
	f.Write(whole[:len(whole)/2]) // the torn line, no line feed
	f.Close()
	b := record1(t, j, 2) // its intent lands on the torn line
	entries, notes, err := j.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].ID != a || entries[1].ID != b || entries[1].Outcome != store.OutcomeApplied {
		t.Fatalf("entries %+v; want %s and %s applied", entries, a, b)
	}
	if len(notes) != 1 || notes[0].File != j.Path() || notes[0].Line != 3 {
		t.Fatalf("notes %+v; want one at %s:3", notes, j.Path())
	}
	// A torn tail: the last line cut, without its line feed.
	f, _ = os.OpenFile(j.Path(), os.O_WRONLY|os.O_APPEND, 0)
	f.Write(whole[:10])
	f.Close()
	entries, notes, err = j.List()
	if err != nil || len(entries) != 2 || len(notes) != 2 || notes[1].Line != 5 || !strings.Contains(notes[1].Why, "cut short") {
		t.Fatalf("torn tail: %d entries, notes %+v, %v", len(entries), notes, err)
	}
}

// TestCompaction: past the cap, the first write of the next action
// drops the oldest actions, whole (a user action with its undo), until
// half the cap is left; the newest is kept however large; a file an
// older kvdeck rotated (NAME.1) is folded in; dropping actions that could
// still be undone is said (Notices), once.
func TestCompaction(t *testing.T) {
	dir := t.TempDir()
	j := openIn(t, dir, "file:r.db", 4000)
	// An older kvdeck's rotated file.
	old := openIn(t, dir, "file:r.db", 0)
	first := record1(t, old, 1000)
	if err := os.Rename(old.Path(), old.Path()+".1"); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 40 {
		ids = append(ids, record1(t, j, i))
	}
	// One large action, its writes past the cap: kept whole.
	big := store.NewAction("load")
	var bigIDs []string
	for i := range 30 {
		k := codec.Key{codec.String("big"), codec.Number(float64(i))}
		bigIDs = append(bigIDs, writeIn(t, j, big, store.PendingWrite{Op: "load", Kind: "set-many", Keys: [][]byte{codec.MustEncode(k)},
			Mutations: []store.Mutation{{Type: store.MutationSet, Key: k, Value: []byte(fmt.Sprint(i))}}},
			store.WriteResult{Outcome: store.OutcomeApplied, Stamp: codec.FormatStamp(int64(100 + i))}, ""))
	}
	if _, err := os.Stat(j.Path() + ".1"); !os.IsNotExist(err) {
		t.Errorf("the rotated file is still there: %v", err)
	}
	h, notes, err := j.History()
	if err != nil || len(notes) != 0 {
		t.Fatal(err, notes)
	}
	if got := actOf(t, h, bigIDs[29]); len(got.Entries) != 30 {
		t.Fatalf("the large action has %d of its 30 writes", len(got.Entries))
	}
	for _, e := range h.Entries {
		if e.ID == first {
			t.Error("the rotated file's entry survived compaction")
		}
	}
	n := j.Notices()
	if len(n) == 0 || !strings.Contains(n[0], "grew past 3.9 KiB and dropped its") || !strings.Contains(n[0], "can no longer be undone") {
		t.Fatalf("notices %q", n)
	}
	// The next action keeps it (the newest until then); the one after
	// drops it (it no longer fits half the cap) and says so.
	bigAct := actOf(t, h, bigIDs[0]).ID
	next := record1(t, j, 200)
	if h, _, _ = j.History(); len(h.Actions) < 2 || len(actOf(t, h, bigIDs[0]).Entries) != 30 {
		t.Fatalf("the next action dropped the large one: %d actions", len(h.Actions))
	}
	n = j.Notices()
	last := record1(t, j, 201)
	h, _, _ = j.History()
	if len(h.Actions) != 2 || h.Actions[0].Entries[0].ID != next || h.Actions[1].Entries[0].ID != last {
		t.Fatalf("after two more actions: %d actions", len(h.Actions))
	}
	if got := j.Notices(); len(got) != len(n)+1 || !strings.Contains(got[len(n)], "the newest "+bigAct+" (load") {
		t.Fatalf("notices %q; want the large action named", got)
	}
	if m := mode(t, j.Path()); m != 0o600 {
		t.Errorf("compacted file %v", m)
	}
	if len(ids) != 40 {
		t.Fatal(ids)
	}
}

// TestConcurrentAppends: many writers (each its own Journal, as separate
// processes would be) append to one file at once; every line reads back
// whole and every entry has its outcome.
func TestConcurrentAppends(t *testing.T) {
	dir := t.TempDir()
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j := openIn(t, dir, "file:c.db", 0)
			for i := range each {
				record1(t, j, w*1000+i)
			}
		}()
	}
	wg.Wait()
	entries, notes, err := openIn(t, dir, "file:c.db", 0).List()
	if err != nil || len(notes) != 0 {
		t.Fatal(err, notes)
	}
	if len(entries) != writers*each {
		t.Fatalf("%d entries; want %d", len(entries), writers*each)
	}
	for _, e := range entries {
		if e.Outcome != store.OutcomeApplied {
			t.Fatalf("entry %s: %s", e.ID, e.Outcome)
		}
	}
}

// TestCompactionBesideWriteInFlight: a write of this process still
// waiting for its answer when another action's first write compacts the
// journal is kept (its outcome line comes later), and the compaction
// does not wait on the journal's own lock.
func TestCompactionBesideWriteInFlight(t *testing.T) {
	j := openIn(t, t.TempDir(), "file:f.db", 2000)
	k := codec.Key{codec.String("slow")}
	slow, err := j.Before(context.Background(), store.PendingWrite{Op: "set", Kind: "commit", Keys: [][]byte{codec.MustEncode(k)},
		Mutations: []store.Mutation{{Type: store.MutationSet, Key: k, Value: []byte(`1`)}}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 40 {
			record1(t, j, i)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("compaction beside a write in flight never ended")
	}
	j.After(context.Background(), slow, store.WriteResult{Outcome: store.OutcomeApplied, Stamp: codec.FormatStamp(99)})
	entries, _, _ := j.List()
	if entries[0].ID != slow || entries[0].Outcome != store.OutcomeApplied {
		t.Fatalf("the write in flight: %+v", entries[0])
	}
}

// TestBeforeAllSyncsImagesOnce: BeforeAll appends the intents of a
// sweep's commits, their before-images in them, and syncs them before it
// returns; their outcome lines are left unsynced until Sync (or the next
// synced line), and an outcome's Kept rows are no part of the entry's
// before-images.
func TestBeforeAllSyncsImagesOnce(t *testing.T) {
	j := openIn(t, t.TempDir(), "file:/x/unsynced.db", 0)
	if err := j.Sync(); err != nil {
		t.Fatalf("Sync of a journal never written: %v", err)
	}
	a := codec.MustEncode(codec.Key{codec.String("a")})
	b := codec.MustEncode(codec.Key{codec.String("b")})
	rows := []store.RawRow{{Key: a, Value: []byte(`1`), Ver: 1, ExpiresAt: i64p(5)}, {Key: b, Value: []byte(`2`), Ver: 2, ExpiresAt: i64p(5)}}
	ids, err := j.BeforeAll(context.Background(), []store.PendingWrite{
		{Op: "sweep", Kind: "sweep", Keys: [][]byte{a, b}, Imaged: true, Before: rows},
		{Op: "sweep", Kind: "sweep", Keys: [][]byte{b}, Imaged: true, Before: rows[1:]},
	})
	if err != nil || len(ids) != 2 {
		t.Fatalf("BeforeAll: %v %v", ids, err)
	}
	if j.unsynced {
		t.Fatal("BeforeAll left its intents unsynced")
	}
	es, _, err := j.List()
	if err != nil || len(es) != 2 || string(es[0].pre[1].K) != hex.EncodeToString(b) || es[0].Outcome != store.OutcomeUnknown {
		t.Fatalf("entries before any commit %+v %v: want both intents with their images", es, err)
	}
	j.After(context.Background(), ids[0], store.WriteResult{Outcome: store.OutcomeApplied, Kept: [][]byte{b}})
	if !j.unsynced {
		t.Fatal("a BeforeAll write's outcome line was synced at once")
	}
	j.After(context.Background(), ids[1], store.WriteResult{Outcome: store.OutcomeNotApplied})
	es, _, err = j.List()
	if err != nil || len(es) != 2 || es[0].Outcome != store.OutcomeApplied || len(es[0].Before) != 1 || !bytes.Equal(es[0].Before[0].Key, a) ||
		string(es[0].Before[0].Value) != "1" || es[0].After[string(a)] != 0 || len(es[0].After) != 1 {
		t.Fatalf("entries %+v %v: want the applied sweep with a's row only (b kept)", es, err)
	}
	if err := j.Sync(); err != nil || j.unsynced {
		t.Fatalf("Sync: %v, unsynced after it %v", err, j.unsynced)
	}
}

func i64p(n int64) *int64 { return &n }
