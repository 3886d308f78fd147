package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"reflect"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/store"
)

// richRecords are lines of every kind with every field set, values that
// are not UTF-8 included.
func richRecords(t testing.TB) []record {
	t.Helper()
	exp := int64(1767312001000)
	in := 30 * time.Second
	key := codec.Key{codec.String("users"), codec.Number(42), codec.Bytes([]byte{0, 0xff})}
	m1, err := newMutRec(store.Mutation{Type: store.MutationSet, Key: key, Value: []byte(`{"a":"é\n"}`), ExpireIn: &in})
	if err != nil {
		t.Fatal(err)
	}
	m2, err := newMutRec(store.Mutation{Type: store.MutationSet, Key: key, Value: []byte(`1`), ExpiresAt: &exp})
	if err != nil {
		t.Fatal(err)
	}
	m3, err := newMutRec(store.Mutation{Type: store.MutationDelete, Key: codec.Key{}})
	if err != nil {
		t.Fatal(err)
	}
	long, err := newMutRec(store.Mutation{Type: store.MutationSet, Key: key, Value: []byte(`"` + strings.Repeat("x", 100) + `"`)})
	if err != nil {
		t.Fatal(err)
	}
	bad := store.RawRow{Key: []byte{0xff, 0x00}, Value: []byte{0xc3, 0x28, '"'}, Ver: 7, ExpiresAt: &exp}
	return []record{
		{T: recIntent, ID: "abcd1234", Act: "act00001", At: 1, Host: "h", PID: 9, Op: "set", Kind: "commit",
			Keys: []string{m1.K, "ff00"}, Checks: []checkRec{{K: m1.K, Stamp: "00000000000000000007"}},
			Muts: []mutRec{m1, m2, m3, long}, Undoes: "zzzz0000"},
		{T: recIntent, ID: "r", At: 2, Kind: "restore",
			Restores: []restoreRec{newRestoreRec(store.RestoreOp{Key: bad.Key, ExpectVer: 3, Put: &bad}, ""), newRestoreRec(store.RestoreOp{Key: []byte{2}, ExpectVer: 0}, ""),
				newRestoreRec(store.RestoreOp{Key: []byte{3}, ExpectVer: 4, Put: &bad}, "abcd1234")}},
		{T: recOutcome, ID: "abcd1234", At: 3, Outcome: "applied", Stamp: "00000000000000000008",
			Before: []rowRec{newRowRec(bad), newRowRec(store.RawRow{Key: []byte{2, 'a', 0}, Value: []byte(`"\u2028"`), Ver: 1}), {K: "03", Ver: 9, Of: "r"}}},
		{T: recOutcome, ID: "x", At: 4, Outcome: "unknown", BeforeUnknown: true, Settled: true, Why: "no key tells", Err: "boom \xff"},
		{T: recIntent, ID: "s", Act: "w", At: 5, Op: "wal", Kind: "journal-mode", Setting: &settingRec{Name: store.SettingJournalMode, From: "rollback", To: "wal"}},
	}
}

// TestLineRoundTrip: every record written by formatLine reads back equal,
// values that are not UTF-8 byte for byte.
func TestLineRoundTrip(t *testing.T) {
	for _, r := range richRecords(t) {
		line, err := formatLine(r)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' {
			t.Fatalf("not one line: %q", line)
		}
		got, err := parseLine(line[:len(line)-1])
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if r.Err != "" {
			r.Err = strings.ToValidUTF8(r.Err, "\ufffd")
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, r)
		}
	}
	// The before-image that is not UTF-8 comes back byte for byte.
	r := richRecords(t)[2]
	line, _ := formatLine(r)
	got, _ := parseLine(line[:len(line)-1])
	row, err := got.Before[0].row()
	if err != nil || !bytes.Equal(row.Value, []byte{0xc3, 0x28, '"'}) || *row.ExpiresAt != 1767312001000 {
		t.Fatalf("before-image: %+v %v", row, err)
	}
}

// TestIntentValueAsStored: a set's value is journaled as the store will
// keep it (JSON.stringify's text), not as typed; a long one by the hash
// of that text, and a restore that puts back a recorded row by the entry
// that recorded it: no value is written twice.
func TestIntentValueAsStored(t *testing.T) {
	m, err := newMutRec(store.Mutation{Type: store.MutationSet, Key: codec.Key{codec.String("n")}, Value: []byte(`{ "a" : 1e3, "b": -0 }`)})
	if err != nil || m.V == nil || *m.V != `{"a":1000,"b":0}` {
		t.Fatalf("%+v %v", m, err)
	}
	long := `{ "text": "` + strings.Repeat("y", 80) + `" }`
	m, err = newMutRec(store.Mutation{Type: store.MutationSet, Key: codec.Key{codec.String("n")}, Value: []byte(long)})
	norm, _ := codec.NormalizeJSON([]byte(long))
	if err != nil || m.V != nil || m.VX != "" || m.VH != valueHash(norm) {
		t.Fatalf("a long value: %+v %v", m, err)
	}
	row := store.RawRow{Key: []byte{1}, Value: []byte(long), Ver: 3}
	r := newRestoreRec(store.RestoreOp{Key: []byte{1}, ExpectVer: 5, Put: &row}, "e1")
	if r.Put != nil || r.From != "e1" {
		t.Fatalf("a restore of a recorded row: %+v", r)
	}
}

// TestLineChecksum: any changed byte of the body, a cut line, or a line
// without the frame is refused.
func TestLineChecksum(t *testing.T) {
	line, err := formatLine(richRecords(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	line = line[:len(line)-1]
	if _, err := parseLine(line); err != nil {
		t.Fatal(err)
	}
	for i := len(`{"c":"12345678","r":`); i < len(line)-1; i += 7 {
		bad := bytes.Clone(line)
		bad[i] ^= 0x01
		if _, err := parseLine(bad); err == nil {
			t.Errorf("byte %d flipped: accepted", i)
		}
	}
	for n := 0; n < len(line); n += 5 {
		if _, err := parseLine(line[:n]); err == nil {
			t.Errorf("cut at %d: accepted", n)
		}
	}
	for _, s := range []string{`{"t":"intent","id":"a"}`, `{"c":"00000000","r":{}}`, `{"c":"ABCDEF01","r":{"t":"intent","id":"a"}}`} {
		if _, err := parseLine([]byte(s)); err == nil {
			t.Errorf("%s: accepted", s)
		}
	}
}

// FuzzJournalLine: the parser never panics, and a line it accepts
// re-formats into a line that parses to the same record.
func FuzzJournalLine(f *testing.F) {
	for _, r := range richRecords(f) {
		line, err := formatLine(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(line[:len(line)-1])
	}
	f.Add([]byte(`{"c":"00000000","r":}`))
	f.Add([]byte(`{"c":"","r":{"t":"intent"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseLine(b)
		if err != nil {
			return
		}
		line, err := formatLine(r)
		if err != nil {
			t.Fatalf("an accepted record does not format: %v", err)
		}
		again, err := parseLine(line[:len(line)-1])
		if err != nil {
			t.Fatalf("re-formatted line refused: %v\n%s", err, line)
		}
		if !reflect.DeepEqual(again, r) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", again, r)
		}
	})
}

// FuzzLineHead: compaction's head of a line is the record's own: every
// line parseLine accepts has a head with its fields. The input is the
// record's text, framed with its checksum.
func FuzzLineHead(f *testing.F) {
	for _, r := range richRecords(f) {
		body, err := json.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body)
	}
	f.Add([]byte(`{"T":"intent","ID":"a","muts":[{"v":"\"}]"}],"Act":null,"pid":1e0}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		b := fmt.Appendf(nil, "%s%08x%s%s%s", linePrefix, crc32.ChecksumIEEE(body), lineMiddle, body, lineSuffix)
		h, herr := parseHead(b)
		r, err := parseLine(b)
		if err != nil {
			return
		}
		want := head{T: r.T, ID: r.ID, At: r.At, Act: r.Act, Host: r.Host, PID: r.PID, Op: r.Op, Undoes: r.Undoes,
			Outcome: r.Outcome, BeforeUnknown: r.BeforeUnknown, Settled: r.Settled}
		if herr != nil || h != want {
			t.Fatalf("head %+v, %v; want %+v", h, herr, want)
		}
	})
}
