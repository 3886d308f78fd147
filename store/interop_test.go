package store_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

type expectedRow struct {
	Key          codec.Key       `json:"key"`
	Hex          string          `json:"hex"`
	Value        json.RawMessage `json:"value"`
	Versionstamp string          `json:"versionstamp"`
	ExpiresAt    *int64          `json:"expiresAt"`
	Meta         *struct {
		Seq int64 `json:"seq"`
	} `json:"meta"`
}

func readExpected(t *testing.T) ([]expectedRow, int64) {
	t.Helper()
	f, err := os.Open(filepath.Join(storetest.VectorsDir(t), "public-reference.expected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []expectedRow
	var seq int64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r expectedRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("expected row %q: %v", sc.Text(), err)
		}
		if r.Meta != nil {
			seq = r.Meta.Seq
			continue
		}
		rows = append(rows, r)
	}
	return rows, seq
}

func fileHash(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// TestPublicReferenceDump opens the reference-written database read-only:
// the dump equals the expected rows, every stored value is already in the
// form our JSON normaliser writes, and the file is byte-identical after.
func TestPublicReferenceDump(t *testing.T) {
	path := filepath.Join(storetest.VectorsDir(t), "public-reference.db")
	before := fileHash(t, path)
	want, wantSeq := readExpected(t)
	s := storetest.Open(t, path, store.Options{ReadOnly: true, Clock: func() int64 { return storetest.T0 }})
	var got []store.Entry
	if err := s.Dump(storetest.Ctx(t), nil, func(e store.Entry) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("dump has %d rows, expected %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.KeyErr != nil || !g.Key.Equal(w.Key) || hex.EncodeToString(g.Raw) != w.Hex {
			t.Errorf("row %d: key %s (%x, %v), want %s (%s)", i, g.Key, g.Raw, g.KeyErr, w.Key, w.Hex)
		}
		if !sameJSON(g.Value, w.Value) {
			t.Errorf("row %d %s: value %s, want %s", i, w.Key, g.Value, w.Value)
		}
		if norm, err := codec.NormalizeJSON(g.Value); err != nil || !bytes.Equal(norm, g.Value) {
			t.Errorf("row %d %s: the reference wrote %s, our normaliser writes %s (%v)", i, w.Key, g.Value, norm, err)
		}
		if g.Versionstamp() != w.Versionstamp || !reflect.DeepEqual(g.ExpiresAt, w.ExpiresAt) {
			t.Errorf("row %d %s: stamp %s expires %v, want %s %v", i, w.Key, g.Versionstamp(), g.ExpiresAt, w.Versionstamp, w.ExpiresAt)
		}
	}
	if seq, err := s.Seq(storetest.Ctx(t)); err != nil || seq != wantSeq {
		t.Fatalf("seq %d (%v), want %d", seq, err, wantSeq)
	}
	if _, err := s.Set(storetest.Ctx(t), storetest.Key(t, `["x"]`), []byte(`1`), nil); err == nil {
		t.Fatal("a read-only store accepted a set")
	}
	s.Close()
	if after := fileHash(t, path); after != before {
		t.Fatalf("public-reference.db changed: %s -> %s", before, after)
	}
	for _, side := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(path + side); err == nil {
			t.Errorf("opening read-only left %s behind", path+side)
		}
	}
}

// TestPublicReferenceLiveness checks, on a copy of the reference store,
// which rows are live at its clock and what a sweep then removes.
func TestPublicReferenceLiveness(t *testing.T) {
	path := storetest.CopyReference(t)
	clock := storetest.NewClock(storetest.T0)
	s := storetest.Open(t, path, store.Options{Clock: clock.Now})
	count := func(prefix string) int {
		t.Helper()
		n := 0
		var p codec.Key
		if prefix != "" {
			p = storetest.Key(t, prefix)
		}
		if err := s.Scan(storetest.Ctx(t), store.ListOptions{Prefix: p}, func(store.Entry) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct {
		at                      int64
		live, tmp, leases, cron int
	}{
		{storetest.T0 - 1, 60, 6, 2, 1},
		{storetest.T0, 59, 5, 2, 1},
		{storetest.T0 + 9, 58, 4, 2, 1},
		{storetest.T0 + 10, 57, 3, 2, 1},
		{storetest.T0 + 29999, 56, 2, 2, 1},
		{storetest.T0 + 30000, 54, 2, 0, 1},
		{storetest.T0 + 45000, 52, 0, 0, 1},
		{storetest.T0 + 60000, 51, 0, 0, 0},
		{storetest.T0 + 120000, 49, 0, 0, 0},
	} {
		clock.Set(c.at)
		got := []int{count(""), count(`["tmp"]`), count(`["dwk_lease"]`), count(`["dwk_cron"]`)}
		if want := []int{c.live, c.tmp, c.leases, c.cron}; !reflect.DeepEqual(got, want) {
			t.Errorf("at NOW%+d: live/tmp/leases/cron = %v, want %v", c.at-storetest.T0, got, want)
		}
	}
	for _, c := range []struct{ at, swept int64 }{
		{storetest.T0, 1}, {storetest.T0 + 10, 2}, {storetest.T0 + 30000, 3}, {storetest.T0 + 45000, 2}, {storetest.T0 + 60000, 1}, {storetest.T0 + 120000, 2},
	} {
		res, err := s.Sweep(storetest.Ctx(t), store.SweepOptions{Now: c.at})
		if err != nil || res.Swept != c.swept {
			t.Errorf("sweep at NOW%+d: %+v %v, want %d", c.at-storetest.T0, res, err, c.swept)
		}
	}
	st, err := s.Stats(storetest.Ctx(t), storetest.T0+120000)
	if err != nil || st.Rows != 49 || st.Seq != 63 {
		t.Fatalf("after the sweeps: %+v %v", st, err)
	}
	if st.JournalMode != "delete" {
		t.Fatalf("journal mode %q: an existing database must keep its mode", st.JournalMode)
	}
}

// TestWritesReadBackWithPlainSQL writes through the engine into the
// reference database and checks the raw columns with plain SQL.
func TestWritesReadBackWithPlainSQL(t *testing.T) {
	path := storetest.CopyReference(t)
	clock := storetest.NewClock(storetest.T0)
	s := storetest.Open(t, path, store.Options{Clock: clock.Now})
	res, err := s.Atomic().
		Check(storetest.Key(t, `["accounts", "acme"]`), codec.FormatStamp(38)).
		Set(storetest.Key(t, `["accounts", "acme"]`), []byte(`{"plan": "free", "n": 1e21, "z": -0}`)).
		SetExpiring(storetest.Key(t, `["mixed", b"0100", "sé", 2.5, -3n, true]`), []byte(`"\u2028"`), 1500*time.Millisecond).
		Commit(storetest.Ctx(t))
	if err != nil || !res.OK || res.Versionstamp != codec.FormatStamp(64) {
		t.Fatalf("commit: %+v %v", res, err)
	}
	s.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT hex(k), v, ver, typeof(ver), expires_at, typeof(expires_at) FROM kv WHERE ver = 64 ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type raw struct {
		hex, v, vt, et string
		ver            int64
		exp            sql.NullInt64
	}
	var got []raw
	for rows.Next() {
		var r raw
		if err := rows.Scan(&r.hex, &r.v, &r.ver, &r.vt, &r.exp, &r.et); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	want := []raw{
		{hex: "026163636F756E7473000261636D6500", v: `{"plan":"free","n":1e+21,"z":0}`, ver: 64, vt: "integer", et: "null"},
		// the hex is the reference encoding of this key in public-reference.expected.jsonl
		{hex: "026D6978656400010100FF000273C3A90003C004000000000000047FFFFFFFFFFFFFFD0501", v: "\"\u2028\"", ver: 64, vt: "integer", et: "integer", exp: sql.NullInt64{Int64: storetest.T0 + 1500, Valid: true}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("raw rows\n got %+v\nwant %+v", got, want)
	}
	var seq, ok int64
	if err := db.QueryRow("SELECT seq, ok FROM kv_meta").Scan(&seq, &ok); err != nil || seq != 64 || ok != 1 {
		t.Fatalf("kv_meta seq=%d ok=%d %v", seq, ok, err)
	}
}
