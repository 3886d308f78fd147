package cli

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
)

// spillRoundTrip adds recs to a new spill and reads them back.
func spillRoundTrip(t *testing.T, recs []loadRecord) []loadRecord {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	s, err := newLoadSpill()
	if err != nil {
		t.Fatal(err)
	}
	defer s.remove()
	if st, err := os.Stat(s.f.Name()); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the spill %s: %v, mode %v; want 0600", s.f.Name(), err, st.Mode())
	}
	for _, r := range recs {
		if err := s.add(r); err != nil {
			t.Fatal(err)
		}
	}
	var got []loadRecord
	if err := s.each(func(r loadRecord) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

// spilled is rec as the spill gives it back: an undecodable row keeps
// only its line and that it does not decode.
func spilled(rec loadRecord) loadRecord {
	if rec.undecodable != "" {
		return loadRecord{line: rec.line, undecodable: "spilled"}
	}
	return rec
}

// TestLoadSpillKeepsEveryRecord: what load's first pass spills comes back
// in its second as parsed, line numbers, keys, values (empty, large,
// binary) and expiries (none, 0, negative, the extremes) alike.
func TestLoadSpillKeepsEveryRecord(t *testing.T) {
	exp := func(v int64) *int64 { return &v }
	var recs []loadRecord
	add := func(k codec.Key, v []byte, e *int64) {
		recs = append(recs, loadRecord{line: 3*len(recs) + 1, key: k, enc: string(codec.MustEncode(k)), value: v, expiresAt: e})
	}
	add(codec.Key{codec.String("users"), codec.String("alice")}, []byte(`{"plan":"pro"}`), nil)
	add(codec.Key{}, []byte(`""`), exp(0))
	add(codec.Key{codec.Bytes([]byte{0, 0xff}), codec.Number(-1.5), codec.Bigint(-7), codec.Bool(true)}, []byte("\xff\x00raw"), exp(-1))
	add(codec.Key{codec.String("big")}, bytes.Repeat([]byte("v"), 3<<20), exp(1<<63-1))
	add(codec.Key{codec.String("min")}, []byte(`1`), exp(-1<<63))
	recs = append(recs, loadRecord{line: 1 << 40, undecodable: "key does not decode: x"})
	add(codec.Key{codec.String("empty")}, []byte{}, nil)
	got := spillRoundTrip(t, recs)
	if len(got) != len(recs) {
		t.Fatalf("%d records back, %d spilled", len(got), len(recs))
	}
	for i, r := range recs {
		want := spilled(r)
		if want.value != nil && len(want.value) == 0 && got[i].value != nil && len(got[i].value) == 0 {
			got[i].value = want.value // an empty value is empty, whatever its slice
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, got[i], want)
		}
	}
}

// FuzzLoadSpill: every line parseLoadLine accepts comes back from the
// spill as it was parsed.
func FuzzLoadSpill(f *testing.F) {
	for _, s := range []string{
		`{"key":"[\"a\"]","value":1}`,
		`{"key":[{"type":"string","value":"a"}],"hex":"026100","value":{"x":[1]},"versionstamp":"00000000000000000001","expiresAt":1767312000000,"expired":false}`,
		`{"key":null,"hex":"ff","value":"raw","error":"key does not decode"}`,
		`{"key":"[\"b\", 1n, true]","value":"x","valueHex":"ff00","expiresAt":-5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		rec, ok, err := parseLoadLine(line, 7)
		if err != nil || !ok {
			return
		}
		got := spillRoundTrip(t, []loadRecord{rec})
		want := spilled(rec)
		if len(got) == 1 && len(got[0].value) == 0 && len(want.value) == 0 {
			got[0].value = want.value
		}
		if len(got) != 1 || !reflect.DeepEqual(got[0], want) {
			t.Fatalf("%q: spilled %+v, back %+v", line, want, got)
		}
	})
}

// spills are the names of load's spills in dir.
func spills(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, n := range storetest.DirNames(t, dir) {
		if strings.HasPrefix(n, "kvdeck-load-") {
			out = append(out, n)
		}
	}
	return out
}

// TestLoadLeavesNoSpill: on every backend a load from stdin and from a
// file writes every row, skips the undecodable one, and leaves no spill
// in the temporary directory; nor does a load refused for a malformed
// line.
func TestLoadLeavesNoSpill(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the tests' own directories come here too
	in := loadLines(1200) + `{"key":null,"hex":"ff","value":"raw","error":"key does not decode"}` + "\n"
	file := writeFile(t, "in.jsonl", in)
	eachBackend(t, func(t *testing.T, c *cli, _ storetest.Backend) {
		for _, src := range []string{"-", file} {
			r := c.runIn(in, "-o", "json", "load", src)
			if r.code != 0 || !strings.HasPrefix(r.stdout, `{"loaded":1200,"skipped":1,`) || !strings.Contains(r.stdout, `"undecodable":1`) {
				t.Fatalf("load %s: exit %d\n%s%s", src, r.code, r.stdout, r.stderr)
			}
			if names := spills(t, tmp); len(names) != 0 {
				t.Fatalf("load %s left %v in the temporary directory", src, names)
			}
		}
		if got := c.must("-o", "json", "list", `["l"]`); strings.Count(got, "\n") != 1200 {
			t.Errorf("list after the loads: %d lines, want 1200", strings.Count(got, "\n"))
		}
		r := c.runIn(loadLines(10)+"not json\n", "load", "-")
		if r.code == 0 || !strings.Contains(r.stderr, "malformed line") {
			t.Fatalf("a malformed load: exit %d\n%s", r.code, r.stderr)
		}
		if names := spills(t, tmp); len(names) != 0 {
			t.Fatalf("a refused load left %v in the temporary directory", names)
		}
	})
}
