package store_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// recording is a Recorder that keeps what it is told (not a database
// mock: the writes go to real databases). It fails the test when After
// comes for an id Before never gave, or twice.
type recording struct {
	t    *testing.T
	mu   sync.Mutex
	fail error // Before's answer, when set
	// writes[i] is the i-th Before, results[i] its After (nil until then).
	writes  []store.PendingWrite
	results []*store.WriteResult
}

func record(t *testing.T, s *store.Store) *recording {
	t.Helper()
	r := &recording{t: t}
	s.SetRecorder(r)
	return r
}

func (r *recording) Before(_ context.Context, w store.PendingWrite) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return "", r.fail
	}
	r.writes = append(r.writes, w)
	r.results = append(r.results, nil)
	return fmt.Sprint(len(r.writes) - 1), nil
}

func (r *recording) After(_ context.Context, id string, res store.WriteResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var i int
	if _, err := fmt.Sscan(id, &i); err != nil || i < 0 || i >= len(r.results) {
		r.t.Errorf("After(%q): no Before gave that id", id)
		return
	}
	if r.results[i] != nil {
		r.t.Errorf("After(%q) told twice", id)
	}
	r.results[i] = &res
}

// hooked is a recording that runs hook after it recorded a write: where
// the journal has put the write's images on the disk and the commit is
// not sent yet.
type hooked struct {
	*recording
	hook func(store.PendingWrite)
}

func (r *hooked) Before(ctx context.Context, w store.PendingWrite) (string, error) {
	id, err := r.recording.Before(ctx, w)
	if err == nil && r.hook != nil {
		r.hook(w)
	}
	return id, err
}

// only returns the one write recorded since the last reset, with its
// result, and resets; it fails the test unless exactly one was recorded
// and told its end.
func (r *recording) only(t *testing.T) (store.PendingWrite, store.WriteResult) {
	t.Helper()
	ws, rs := r.take(t)
	if len(ws) != 1 {
		t.Fatalf("%d writes journaled, want 1: %+v", len(ws), ws)
	}
	return ws[0], rs[0]
}

// take returns every write recorded since the last reset and resets; each
// must have been told its end.
func (r *recording) take(t *testing.T) ([]store.PendingWrite, []store.WriteResult) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	ws, rs := r.writes, make([]store.WriteResult, len(r.results))
	for i, res := range r.results {
		if res == nil {
			t.Fatalf("write %d (%s) was never told its end", i, ws[i].Kind)
		}
		rs[i] = *res
	}
	r.writes, r.results = nil, nil
	return ws, rs
}

func enc(t *testing.T, text string) []byte {
	t.Helper()
	b, err := codec.Encode(storetest.Key(t, text))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func i64(n int64) *int64 { return &n }

// sameRows compares before-images regardless of order, byte for byte.
func sameRows(t *testing.T, what string, got, want []store.RawRow) {
	t.Helper()
	sortRows := func(rs []store.RawRow) []store.RawRow {
		rs = slices.Clone(rs)
		slices.SortFunc(rs, func(a, b store.RawRow) int { return bytes.Compare(a.Key, b.Key) })
		return rs
	}
	text := func(rs []store.RawRow) string {
		out := ""
		for _, r := range sortRows(rs) {
			exp := "none"
			if r.ExpiresAt != nil {
				exp = fmt.Sprint(*r.ExpiresAt)
			}
			out += fmt.Sprintf("[%x %q ver %d expires %s] ", r.Key, r.Value, r.Ver, exp)
		}
		return out
	}
	if g, w := text(got), text(want); g != w {
		t.Errorf("%s: before-images\n got %s\nwant %s", what, g, w)
	}
}

// rawRow reads the physical row at a key (or nil) as a RawRow.
func rawRow(t *testing.T, s *store.Store, key []byte) *store.RawRow {
	t.Helper()
	e, found, err := s.GetRaw(storetest.Ctx(t), key)
	if err != nil {
		t.Fatal(err)
	}
	if !found {
		return nil
	}
	return &store.RawRow{Key: e.Raw, Value: e.Value, Ver: e.Ver, ExpiresAt: e.ExpiresAt}
}

// TestJournalCommitBeforeImages: a journaled commit tells the Recorder
// what it will do before it is sent, then its stamp and the rows it
// replaced as its own transaction found them: a live row, an
// expired-but-present one, a foreign row (a BLOB value, a whole REAL ver,
// a fractional expiry), and nothing for an absent key.
func TestJournalCommitBeforeImages(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		c := storetest.NewClock(storetest.T0)
		s := storetest.Open(t, url, store.Options{Clock: c.Now})
		ctx := storetest.Ctx(t)
		stampA := mustSet(t, s, `["a"]`, `{"old":1}`, nil)
		stampB := mustSet(t, s, `["b"]`, `"dying"`, dur(time.Millisecond))
		c.Add(time.Second) // b is expired, still present
		storetest.Exec(t, url, fmt.Sprintf(`INSERT INTO kv (k, v, ver, expires_at) VALUES (x'%s', x'626c6f62', 7.0, %d.5)`,
			hex.EncodeToString(enc(t, `["d"]`)), storetest.T0+60_000))
		r := record(t, s)
		res, err := s.Atomic().Check(storetest.Key(t, `["a"]`), stampA).
			Set(storetest.Key(t, `["a"]`), []byte(`"new"`)).
			Set(storetest.Key(t, `["b"]`), []byte(`"back"`)).
			Set(storetest.Key(t, `["c"]`), []byte(`3`)).
			Delete(storetest.Key(t, `["d"]`)).
			Set(storetest.Key(t, `["a"]`), []byte(`"newer"`)).
			Commit(store.WithWriteOp(ctx, "test: set"))
		if err != nil || !res.OK {
			t.Fatalf("commit: %+v %v", res, err)
		}
		w, out := r.only(t)
		if w.Op != "test: set" || w.Kind != "commit" || len(w.Checks) != 1 || len(w.Mutations) != 5 {
			t.Errorf("pending write: %+v", w)
		}
		if want := [][]byte{enc(t, `["a"]`), enc(t, `["b"]`), enc(t, `["c"]`), enc(t, `["d"]`)}; !slices.EqualFunc(w.Keys, want, bytes.Equal) {
			t.Errorf("keys %x, want %x (each once, in mutation order)", w.Keys, want)
		}
		if out.Outcome != store.OutcomeApplied || out.Stamp != res.Versionstamp || out.Err != nil || out.BeforeUnknown {
			t.Errorf("result: %+v, want applied at %s", out, res.Versionstamp)
		}
		verB, _ := codec.ParseStamp(stampB)
		verA, _ := codec.ParseStamp(stampA)
		sameRows(t, "commit", out.Before, []store.RawRow{
			{Key: enc(t, `["a"]`), Value: []byte(`{"old":1}`), Ver: verA},
			{Key: enc(t, `["b"]`), Value: []byte(`"dying"`), Ver: verB, ExpiresAt: i64(storetest.T0 + 1)},
			{Key: enc(t, `["d"]`), Value: []byte(`blob`), Ver: 7, ExpiresAt: i64(storetest.T0 + 60_001)},
		})
	})
}

// TestJournalFailedCheck: a commit whose check fails is journaled as not
// applied, without before-images, and writes nothing.
func TestJournalFailedCheck(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		mustSet(t, s, `["a"]`, `1`, nil)
		r := record(t, s)
		res, err := s.Atomic().Check(storetest.Key(t, `["a"]`), "").Set(storetest.Key(t, `["a"]`), []byte(`2`)).Commit(storetest.Ctx(t))
		if err != nil || res.OK {
			t.Fatalf("commit over a present key with an absent check: %+v %v", res, err)
		}
		w, out := r.only(t)
		if w.Kind != "commit" || out.Outcome != store.OutcomeNotApplied || len(out.Before) != 0 || out.Stamp != "" || out.Err != nil {
			t.Errorf("journaled %+v as %+v, want not-applied without before-images", w, out)
		}
		if e, _, _ := s.Get(storetest.Ctx(t), storetest.Key(t, `["a"]`)); string(e.Value) != `1` {
			t.Errorf("the failed commit wrote %s", e.Value)
		}
	})
}

// TestJournalRefusalStopsTheWrite: when the Recorder cannot record a
// write, the write is not made (nothing written, seq unchanged) and its
// error is ErrJournal and the Recorder's; After is never called.
func TestJournalRefusalStopsTheWrite(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		ctx := storetest.Ctx(t)
		mustSet(t, s, `["keep"]`, `1`, nil)
		mustSet(t, s, `["old"]`, `1`, dur(time.Millisecond))
		c.Add(time.Second)
		seq0, _ := s.Seq(ctx)
		r := record(t, s)
		full := errors.New("disk full")
		r.fail = full
		check := func(what string, err error) {
			t.Helper()
			if !errors.Is(err, store.ErrJournal) || !errors.Is(err, full) {
				t.Errorf("%s: %v, want ErrJournal and the recorder's error", what, err)
			}
		}
		_, err := s.Set(ctx, storetest.Key(t, `["new"]`), []byte(`1`), nil)
		check("set", err)
		_, err = s.SetMany(ctx, []store.Mutation{{Type: store.MutationSet, Key: storetest.Key(t, `["new"]`), Value: []byte(`1`)}})
		check("set many", err)
		check("delete", s.Delete(ctx, storetest.Key(t, `["keep"]`)))
		_, err = s.DeleteRaw(ctx, enc(t, `["keep"]`), 0)
		check("delete raw", err)
		_, err = s.Sweep(ctx, store.SweepOptions{})
		check("sweep", err)
		_, err = s.Restore(ctx, []store.RestoreOp{{Key: enc(t, `["new"]`), Put: &store.RawRow{Value: []byte(`1`)}}})
		check("restore", err)
		if ws, _ := r.take(t); len(ws) != 0 {
			t.Errorf("refused writes were recorded: %+v", ws)
		}
		var keys []string
		if err := s.Dump(ctx, nil, func(e store.Entry) error { keys = append(keys, codec.Format(e.Key)); return nil }); err != nil {
			t.Fatal(err)
		}
		if seq, _ := s.Seq(ctx); seq != seq0 || !slices.Equal(keys, []string{`["keep"]`, `["old"]`}) {
			t.Errorf("after refused writes: seq %d (was %d), rows %v", seq, seq0, keys)
		}
	})
}

// TestJournalNonUTF8Value: a journaled write over a row whose TEXT value
// is not UTF-8 (another program's) is made on every transport: its
// before-image is read as the value's exact bytes (sqld cannot answer such
// TEXT as text and failed the whole write), and Restore puts those bytes
// back as TEXT.
func TestJournalNonUTF8Value(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{Create: true})
		storetest.Exec(t, url, `INSERT INTO kv VALUES (x'026100', CAST(x'22ff22' AS TEXT), 1, NULL)`)
		r := record(t, s)
		k := storetest.Key(t, `["a"]`)
		if _, err := s.Set(storetest.Ctx(t), k, []byte(`1`), nil); err != nil {
			t.Fatalf("journaled set over a non-UTF-8 value: %v", err)
		}
		_, res := r.only(t)
		sameRows(t, "before", res.Before, []store.RawRow{{Key: enc(t, `["a"]`), Value: []byte("\"\xff\""), Ver: 1}})
		now := rawRow(t, s, enc(t, `["a"]`))
		put := res.Before[0]
		if _, err := s.Restore(storetest.Ctx(t), []store.RestoreOp{{Key: put.Key, ExpectVer: now.Ver, Put: &put}}); err != nil {
			t.Fatal(err)
		}
		db := storetest.RawDB(t, url)
		var typ string
		var v []byte
		if err := db.QueryRowContext(storetest.Ctx(t), `SELECT typeof(v), CAST(v AS BLOB) FROM kv WHERE k = x'026100'`).Scan(&typ, &v); err != nil {
			t.Fatal(err)
		}
		if typ != "text" || string(v) != "\"\xff\"" {
			t.Errorf("restored %s %q; want text %q", typ, v, "\"\xff\"")
		}
	})
}

// batching is a recording that is also a BatchRecorder: it notes, per
// BeforeAll, how many of the store's rows (read with a second connection)
// still stood among the images it was handed, and, per Sync, how many
// writes had been told their end by then.
type batching struct {
	*recording
	count  func() int // rows in kv now
	before []int      // per BeforeAll: images handed, rows standing
	syncs  []int
}

func (r *batching) BeforeAll(ctx context.Context, ws []store.PendingWrite) ([]string, error) {
	images := 0
	for _, w := range ws {
		images += len(w.Before)
	}
	r.before = append(r.before, images, r.count())
	ids := make([]string, len(ws))
	for i, w := range ws {
		id, err := r.Before(ctx, w)
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}

func (r *batching) Sync() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	ended := 0
	for _, res := range r.results {
		if res != nil {
			ended++
		}
	}
	r.syncs = append(r.syncs, ended)
	return nil
}

// TestSweepRecordsImagesBeforeDeleting: a sweep's delete commits are
// recorded with their rows as before-images, all of a batch with one
// BeforeAll, while every one of those rows still stands (the journal's
// sync precedes the deletes); Sync comes once, after the last commit's
// end; each commit's outcome claims exactly its rows. On a file the
// first batch is one commit's rows (the deletes start while the rest is
// read); over a server, where that would be one more request, the first
// window's. A Recorder that cannot batch is told each commit with its
// images before it.
func TestSweepRecordsImagesBeforeDeleting(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
		seed := func() {
			a := s.Atomic()
			for i := range 25 {
				a.SetExpiring(codec.Key{codec.String("exp"), codec.Number(float64(i))}, []byte(`0`), 0)
			}
			if _, err := a.Commit(storetest.Ctx(t)); err != nil {
				t.Fatal(err)
			}
		}
		seed()
		db := storetest.RawDB(t, url)
		count := func() int {
			var n int
			if err := db.QueryRowContext(storetest.Ctx(t), `SELECT count(*) FROM kv`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		r := &batching{recording: &recording{t: t}, count: count}
		s.SetRecorder(r)
		res, err := s.Sweep(storetest.Ctx(t), store.SweepOptions{Batch: 10})
		if err != nil || res.Swept != 25 {
			t.Fatalf("sweep: %+v %v", res, err)
		}
		ws, rs := r.take(t)
		// (images, rows standing) of each BeforeAll: on a file the second
		// comes before or after the first commit.
		want := [][]int{{25, 25}}
		if b.Name == "file" {
			want = [][]int{{10, 25, 15, 25}, {10, 25, 15, 15}}
		}
		if len(ws) != 3 || !slices.ContainsFunc(want, func(w []int) bool { return slices.Equal(r.before, w) }) {
			t.Fatalf("%d commits journaled, BeforeAll (images, rows standing) %v: want 3, as one of %v", len(ws), r.before, want)
		}
		for i, w := range ws {
			if w.Kind != "sweep" || !w.Imaged || len(w.Before) != len(w.Keys) || rs[i].Outcome != store.OutcomeApplied ||
				len(rs[i].Before) != len(w.Keys) || len(rs[i].Kept) != 0 {
				t.Fatalf("commit %d told %q imaged %v with %d images of %d keys; ended %+v", i, w.Kind, w.Imaged, len(w.Before), len(w.Keys), rs[i])
			}
		}
		if len(r.syncs) != 1 || r.syncs[0] != 3 {
			t.Fatalf("syncs after %v ended writes, want one after all 3", r.syncs)
		}

		seed()
		plain := record(t, s)
		if _, err := s.Sweep(storetest.Ctx(t), store.SweepOptions{Batch: 10}); err != nil {
			t.Fatal(err)
		}
		ws, _ = plain.take(t)
		for i, w := range ws {
			if !w.Imaged || len(w.Before) != len(w.Keys) {
				t.Fatalf("commit %d told without its images: %+v", i, w)
			}
		}
	})
}

// TestJournaledSweepFitsTheResponseLimit: a journaled sweep reads its
// expired rows whole; over a server, a window whose answer the server
// refuses as too large (sqld: 10 MB) is halved until it fits, so 24 MB of
// expired values are swept, every row journaled, in windows the server
// answers.
func TestJournaledSweepFitsTheResponseLimit(t *testing.T) {
	storetest.Each(t, []storetest.Backend{storetest.SQLD().Named("http"), storetest.SQLDWS()}, func(t *testing.T, b storetest.Backend) {
		s := storetest.Open(t, b.URL(t), store.Options{Clock: storetest.NewClock(storetest.T0).Now})
		value := []byte(`"` + strings.Repeat("v", 200<<10) + `"`)
		const rows = 120
		for c := range rows / 20 {
			a := s.Atomic()
			for i := range 20 {
				a.SetExpiring(codec.Key{codec.String("big"), codec.Number(float64(c*20 + i))}, value, 0)
			}
			if _, err := a.Commit(storetest.Ctx(t)); err != nil {
				t.Fatal(err)
			}
		}
		r := &recording{t: t}
		s.SetRecorder(r)
		res, err := s.Sweep(storetest.Ctx(t), store.SweepOptions{})
		if err != nil || res.Swept != rows {
			t.Fatalf("sweep of %d expired rows of 200 KiB: %+v %v", rows, res, err)
		}
		ws, _ := r.take(t)
		imaged := 0
		for _, w := range ws {
			imaged += len(w.Before)
		}
		if imaged != rows {
			t.Fatalf("%d before-images journaled, want %d", imaged, rows)
		}
	})
}
