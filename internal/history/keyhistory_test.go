package history

import (
	"context"
	"testing"

	"kvdeck/store"
)

// keyTimeline is a key's states over n points of a store where every
// point has one more commit (seq = index+1), and rows[i] is the key's
// row at point i (ver 0: no row).
func keyTimeline(n int, spans map[[2]int]int64) []KeyState {
	out := make([]KeyState, n)
	for i := range out {
		out[i].Seq = int64(i + 1)
		for span, ver := range spans {
			if i >= span[0] && i < span[1] {
				out[i].Row = &store.RawRow{Key: []byte("k"), Value: []byte(`{"v":` + string(rune('0'+ver%10)) + `}`), Ver: ver}
			}
		}
	}
	return out
}

func runHistory(t *testing.T, states []KeyState, maxReads int) KeyHistoryResult {
	t.Helper()
	points := make([]Point, len(states))
	for i := range points {
		points[i] = Point{TXID: uint64(i + 1), At: int64(i) * 1000}
	}
	read := map[int]bool{}
	res, err := KeyHistory(context.Background(), points, maxReads, func(_ context.Context, i int) (KeyState, error) {
		if read[i] {
			t.Fatalf("point %d read twice", i)
		}
		read[i] = true
		return states[i], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reads != len(read) {
		t.Fatalf("Reads = %d, %d read", res.Reads, len(read))
	}
	return res
}

func changeIndexes(res KeyHistoryResult) []int {
	var out []int
	for _, c := range res.Changes {
		out = append(out, c.Index)
	}
	return out
}

// TestKeyHistoryBisects: a key set before the first of 400 points
// (stamp 1), replaced at point 120 and again at 300, is found with its
// changes pinned to adjacent points, reading a few points: a stretch
// whose ends hold one stamp is never read inside.
func TestKeyHistoryBisects(t *testing.T) {
	states := keyTimeline(400, map[[2]int]int64{{0, 120}: 1, {120, 300}: 121, {300, 400}: 301})
	res := runHistory(t, states, 0)
	got := changeIndexes(res)
	want := []int{0, 120, 300}
	if len(got) != len(want) {
		t.Fatalf("changes at %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("changes at %v, want %v", got, want)
		}
		if c := res.Changes[i]; i > 0 && c.After != c.Index-1 {
			t.Errorf("change %d not pinned: after %d", c.Index, c.After)
		}
	}
	// Two bisections of at most ceil(log2(400)) = 9 reads each, plus the
	// two ends.
	if res.Reads > 2+2*9 || len(res.Unread) != 0 {
		t.Fatalf("read %d of 400 (unread %v)", res.Reads, res.Unread)
	}
}

// TestKeyHistoryDeleted: a key deleted at point 150 and absent after is
// pinned too; the rowless stretch after it cannot be known to hold no
// row without reading it, and is read (no budget) or named (budget).
func TestKeyHistoryDeleted(t *testing.T) {
	states := keyTimeline(400, map[[2]int]int64{{0, 150}: 1})
	res := runHistory(t, states, 0)
	if got := changeIndexes(res); len(got) != 2 || got[1] != 150 || res.Changes[1].Row != nil {
		t.Fatalf("changes %v", got)
	}
	res = runHistory(t, states, 16)
	if got := changeIndexes(res); len(got) != 2 || got[1] != 150 || res.Changes[1].After != 149 {
		t.Fatalf("with a budget: changes %v", got)
	}
	if len(res.Unread) == 0 || res.Unread[0].First < 150 {
		t.Fatalf("with a budget: unread %v", res.Unread)
	}
}

// TestKeyHistoryBudget: with a budget, the stretches whose ends differ
// are settled first; a row that came and went between two rowless points
// is then named unread, not silently missed.
func TestKeyHistoryBudget(t *testing.T) {
	states := keyTimeline(1000, map[[2]int]int64{{700, 1000}: 701, {300, 303}: 301})
	res := runHistory(t, states, 24)
	got := changeIndexes(res)
	if len(got) != 2 || got[0] != 0 || got[1] != 700 || res.Changes[1].After != 699 {
		t.Fatalf("changes %v (%+v)", got, res.Changes)
	}
	if res.Reads > 24 || len(res.Unread) == 0 {
		t.Fatalf("read %d, unread %v", res.Reads, res.Unread)
	}
	covered := false
	for _, u := range res.Unread {
		if u.First < 300 && u.Last >= 303 {
			covered = true
		}
	}
	if !covered {
		t.Fatalf("the transient row at 300..302 is in no unread stretch: %v", res.Unread)
	}
	// Without a budget it is found.
	res = runHistory(t, states, 0)
	if got := changeIndexes(res); len(got) != 4 || got[1] != 300 || got[2] != 303 || got[3] != 700 {
		t.Fatalf("unbounded: changes %v", got)
	}
}

// TestKeyHistorySameStampSkips: a key whose stamp is the same at both
// ends of the points is read at two points only.
func TestKeyHistorySameStampSkips(t *testing.T) {
	states := keyTimeline(500, map[[2]int]int64{{0, 500}: 1})
	res := runHistory(t, states, 0)
	if res.Reads != 2 || len(res.Changes) != 1 {
		t.Fatalf("read %d, changes %+v", res.Reads, res.Changes)
	}
}

// TestKeyHistorySeqDown: where seq went down between two points (a
// database restored over the store), the same stamp at both ends proves
// nothing and the stretch is read.
func TestKeyHistorySeqDown(t *testing.T) {
	states := keyTimeline(9, map[[2]int]int64{{0, 9}: 5})
	for i := range states {
		states[i].Seq = int64(10 + i)
		if i >= 4 {
			states[i].Seq = int64(i - 3)
		}
	}
	states[4].Row = nil
	res := runHistory(t, states, 0)
	if got := changeIndexes(res); len(got) != 3 || got[1] != 4 || got[2] != 5 {
		t.Fatalf("changes %v: the missing row at 4 was not found (read %d)", got, res.Reads)
	}
}
