package history

import (
	"errors"
	"strings"
	"testing"
)

func TestPick(t *testing.T) {
	points := []Point{{TXID: 1, At: 1000}, {TXID: 2, At: 2000}, {TXID: 5, At: 5000}}
	for _, c := range []struct {
		spec  Spec
		txid  uint64
		next  uint64
		err   string
		index int
	}{
		{spec: Spec{Text: "x", At: 2500}, txid: 2, next: 5, index: 1},
		{spec: Spec{Text: "x", At: 2000}, txid: 2, next: 5, index: 1}, // a point made at the time holds it
		{spec: Spec{Text: "x", At: 9000}, txid: 5, index: 2},
		{spec: Spec{Text: "x", At: 999}, err: "the oldest is"},
		{spec: Spec{Text: "txid:5", TXID: 5}, txid: 5, index: 2},
		{spec: Spec{Text: "txid:3", TXID: 3}, err: "run from txid 1 to 5"},
	} {
		got, err := Pick(points, c.spec, false)
		if c.err != "" {
			if !errors.Is(err, ErrNoPoint) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Pick(%+v) = %+v, %v; want %q", c.spec, got, err, c.err)
			}
			continue
		}
		if err != nil || got.Point.TXID != c.txid || got.Index != c.index || got.Of != 3 {
			t.Errorf("Pick(%+v) = %+v, %v", c.spec, got, err)
			continue
		}
		if (got.Next == nil) != (c.next == 0) || got.Next != nil && got.Next.TXID != c.next {
			t.Errorf("Pick(%+v).Next = %+v, want txid %d", c.spec, got.Next, c.next)
		}
	}
	if _, err := Pick(nil, Spec{At: 5}, false); !errors.Is(err, ErrNoPoint) {
		t.Errorf("no points: %v", err)
	}
	c, err := Pick(nil, Spec{At: 1234}, true)
	if err != nil || c.Point.At != 1234 || c.Index != -1 {
		t.Errorf("a continuous source: %+v, %v", c, err)
	}
	if _, err := Pick(nil, Spec{TXID: 3}, true); err == nil {
		t.Error("a continuous source took a txid")
	}
	text := Choice{Point: points[1], Index: 1, Of: 3, Next: &points[2], Asked: Spec{Text: "-1m", At: 2500}}.Text(KindLitestream)
	for _, want := range []string{"txid 2", "the newest point at or before", "the next, txid 5"} {
		if !strings.Contains(text, want) {
			t.Errorf("Text = %q, want %q in it", text, want)
		}
	}
}
