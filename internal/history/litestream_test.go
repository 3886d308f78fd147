package history

import (
	"strings"
	"testing"
)

// The listing litestream v0.5.18 printed for a replica after a minute of
// writes (ltx -json -level all): L0 files per sync, L1 compactions, a
// snapshot.
const ltxListing = `[
  {"level": 0, "min_txid": "0000000000000001", "max_txid": "0000000000000001", "size": 859, "timestamp": "2026-12-06T05:55:02Z"},
  {"level": 0, "min_txid": "0000000000000008", "max_txid": "0000000000000008", "size": 191, "timestamp": "2026-12-06T05:56:01Z"},
  {"level": 1, "min_txid": "0000000000000001", "max_txid": "0000000000000001", "size": 859, "timestamp": "2026-12-06T05:55:02Z"},
  {"level": 1, "min_txid": "0000000000000002", "max_txid": "0000000000000007", "size": 328, "timestamp": "2026-12-06T05:55:11Z"},
  {"level": 1, "min_txid": "0000000000000008", "max_txid": "0000000000000008", "size": 191, "timestamp": "2026-12-06T05:56:01Z"},
  {"level": 9, "min_txid": "0000000000000001", "max_txid": "0000000000000001", "size": 859, "timestamp": "2026-12-06T05:55:03Z"}
]`

func TestRestorePoints(t *testing.T) {
	files, err := ParseLTXList([]byte(ltxListing))
	if err != nil {
		t.Fatal(err)
	}
	got := RestorePoints(files)
	// L0 files 2..7 are gone (compacted into L1 2-7): 2..6 cannot be
	// restored any more, 7 can; the snapshot's later time does not count.
	want := []Point{{TXID: 1, At: 1796536502000}, {TXID: 7, At: 1796536511000}, {TXID: 8, At: 1796536561000}}
	if len(got) != len(want) {
		t.Fatalf("points %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("point %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	// A chain broken by a missing file: 10 starts after 8, 9 is missing.
	broken := append(files, LTXFile{Level: 0, MinTXID: 10, MaxTXID: 10, At: 1796536600000})
	if pts := RestorePoints(broken); pts[len(pts)-1].TXID != 8 {
		t.Errorf("a point after a hole: %+v", pts)
	}
	// A snapshot past the hole makes its TXID reachable again.
	snap := append(broken, LTXFile{Level: 9, MinTXID: 1, MaxTXID: 12, At: 1796536700000}, LTXFile{Level: 0, MinTXID: 13, MaxTXID: 13, At: 1796536701000})
	pts := RestorePoints(snap)
	if n := len(pts); pts[n-2].TXID != 12 || pts[n-1].TXID != 13 {
		t.Errorf("after a snapshot: %+v", pts)
	}
}

func TestParseLTXListRefuses(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{}`, "not a JSON list"},
		{`[{"min_txid":"1","max_txid":"1","timestamp":"2026-01-01T00:00:00Z"}]`, "level missing"},
		{`[{"level":0,"min_txid":"2","max_txid":"1","timestamp":"2026-01-01T00:00:00Z"}]`, "not a TXID range"},
		{`[{"level":0,"min_txid":"zz","max_txid":"1","timestamp":"2026-01-01T00:00:00Z"}]`, "not a TXID range"},
		{`[{"level":0,"min_txid":"1","max_txid":"1","timestamp":"yesterday"}]`, "not RFC 3339"},
	} {
		if _, err := ParseLTXList([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
	if files, err := ParseLTXList([]byte(`[]`)); err != nil || len(files) != 0 {
		t.Errorf("an empty replica: %v %v", files, err)
	}
}

// FuzzParseLTXList: whatever litestream (or something in its place)
// prints is read or refused, never a panic; the points of what is read
// ascend strictly.
func FuzzParseLTXList(f *testing.F) {
	f.Add([]byte(ltxListing))
	f.Add([]byte(`[]`))
	f.Add([]byte(`[{"level":0,"min_txid":"ffffffffffffffff","max_txid":"ffffffffffffffff","timestamp":"2026-01-01T00:00:00Z"}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		files, err := ParseLTXList(b)
		if err != nil {
			return
		}
		pts := RestorePoints(files)
		for i := 1; i < len(pts); i++ {
			if pts[i].TXID <= pts[i-1].TXID {
				t.Fatalf("points out of order: %+v", pts)
			}
		}
	})
}
