package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"kvdeck/store"
)

func row(k string, ver int64, v string) store.RawRow {
	return store.RawRow{Key: []byte(k), Value: []byte(v), Ver: ver}
}

// poll writes one point: sets, then deletes.
func poll(t *testing.T, r *Recording, at, seq int64, resync, gap bool, sets []store.RawRow, gone ...string) int {
	t.Helper()
	ctx := context.Background()
	p, err := r.Begin(ctx, at, resync, gap)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		if err := p.Set(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range gone {
		if err := p.Gone(ctx, []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	n, err := p.Commit(ctx, seq)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// dumpAt materializes point id and reads it back through the store.
func dumpAt(t *testing.T, r *Recording, id uint64) (seq int64, rows map[string]string) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "p.db")
	if _, err := r.Materialize(ctx, id, path); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("materialized file: %v %v", st.Mode(), err)
	}
	s, err := store.Open(ctx, "file:"+path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	seq, err = s.Seq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows = map[string]string{}
	err = s.DumpAll(ctx, nil, func(e store.Entry) error {
		rows[string(e.Raw)] = fmt.Sprintf("%d:%s", e.Ver, e.Value)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return seq, rows
}

// TestRecordingPoints: a first point of every row, points of sets and
// deletes, a poll that changed nothing kept as no point, each point
// materialized as the store was, and a key's versions.
func TestRecordingPoints(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "history")
	path := filepath.Join(dir, "s.history.db")
	if _, err := OpenRecording(path, "file:s.db", false); !errors.Is(err, ErrNoRecording) {
		t.Fatalf("a missing file without create: %v", err)
	}
	r, err := OpenRecording(path, "file:s.db", true)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != want {
			t.Fatalf("%s: %v, want %v (%v)", p, st.Mode().Perm(), want, err)
		}
	}
	if n := poll(t, r, 1000, 3, true, false, []store.RawRow{row("a", 1, `1`), row("b", 2, `2`), row("c", 3, `3`)}); n != 3 {
		t.Fatalf("first point: %d rows", n)
	}
	poll(t, r, 2000, 4, false, false, []store.RawRow{row("a", 4, `"a4"`)}, "b")
	if n := poll(t, r, 3000, 4, false, false, []store.RawRow{row("a", 4, `"a4"`)}); n != 0 {
		t.Fatalf("a poll that saw the same row kept %d", n)
	}
	poll(t, r, 4000, 5, false, false, []store.RawRow{row("b", 5, `"b5"`)})
	points, err := r.Points(context.Background())
	if err != nil || len(points) != 3 {
		t.Fatalf("points %+v %v", points, err)
	}
	wants := []struct {
		seq  int64
		rows map[string]string
	}{
		{3, map[string]string{"a": "1:1", "b": "2:2", "c": "3:3"}},
		{4, map[string]string{"a": `4:"a4"`, "c": "3:3"}},
		{5, map[string]string{"a": `4:"a4"`, "b": `5:"b5"`, "c": "3:3"}},
	}
	for i, p := range points {
		seq, rows := dumpAt(t, r, p.TXID)
		if seq != wants[i].seq || fmt.Sprint(rows) != fmt.Sprint(wants[i].rows) {
			t.Errorf("point %d: seq %d rows %v, want %d %v", p.TXID, seq, rows, wants[i].seq, wants[i].rows)
		}
	}
	vs, err := r.KeyVersions(context.Background(), []byte("b"))
	if err != nil || len(vs) != 2 || vs[0].Ended != "deleted" || vs[0].Until != points[1].TXID || vs[1].Since != points[2].TXID || vs[1].Until != 0 {
		t.Fatalf("versions of b: %+v %v", vs, err)
	}

	// Resuming after a gap: the rows are given again; a changed one is a
	// new version, one not given was deleted meanwhile.
	poll(t, r, 9000, 9, true, true, []store.RawRow{row("a", 4, `"a4"`), row("c", 8, `"c8"`)})
	points, _ = r.Points(context.Background())
	last := points[len(points)-1]
	if !last.Gap || last.Seq != 9 {
		t.Fatalf("resumed point %+v", last)
	}
	if _, rows := dumpAt(t, r, last.TXID); fmt.Sprint(rows) != fmt.Sprint(map[string]string{"a": `4:"a4"`, "c": `8:"c8"`}) {
		t.Fatalf("after the gap: %v", rows)
	}
}

// TestRecordingTrim: folding the oldest points keeps every later state
// exactly; the size bound folds until the file fits, keeping the newest.
func TestRecordingTrim(t *testing.T) {
	r, err := OpenRecording(filepath.Join(t.TempDir(), "h.db"), "x", true)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var base []store.RawRow
	for i := range 200 {
		base = append(base, row(fmt.Sprintf("k%03d", i), 1, fmt.Sprintf(`"%0200d"`, i)))
	}
	poll(t, r, 1000, 1, true, false, base)
	for i := 2; i <= 60; i++ {
		poll(t, r, int64(i)*1000, int64(i), false, false, []store.RawRow{row(fmt.Sprintf("k%03d", i), int64(i), fmt.Sprintf(`"%0900d"`, i))}, fmt.Sprintf("k%03d", 100+i))
	}
	points, _ := r.Points(context.Background())
	keep := points[30]
	_, before := dumpAt(t, r, keep.TXID)
	_, newest := dumpAt(t, r, points[len(points)-1].TXID)
	res, err := r.Trim(context.Background(), 61000, 61000-keep.At, 0)
	if err != nil || res.Dropped != 30 {
		t.Fatalf("age trim: %+v %v", res, err)
	}
	after, _ := r.Points(context.Background())
	if after[0] != keep || len(after) != 30 {
		t.Fatalf("points after the age trim: first %+v, %d", after[0], len(after))
	}
	if _, got := dumpAt(t, r, keep.TXID); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatal("the first point kept changed when the older ones were folded into it")
	}
	full := res.Bytes
	res, err = r.Trim(context.Background(), 61000, 0, full*3/4)
	if err != nil || res.Dropped == 0 || res.Bytes > full*3/4 && !res.OverSize {
		t.Fatalf("size trim from %d: %+v %v", full, res, err)
	}
	after, _ = r.Points(context.Background())
	if _, got := dumpAt(t, r, after[len(after)-1].TXID); fmt.Sprint(got) != fmt.Sprint(newest) {
		t.Fatal("the newest point changed")
	}
	if res, err = r.Trim(context.Background(), 61000, 0, 1); err != nil || !res.OverSize {
		t.Fatalf("a bound under the newest point: %+v %v", res, err)
	}
}
