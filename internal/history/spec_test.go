package history

import (
	"strings"
	"testing"
	"time"
)

func TestParseSpec(t *testing.T) {
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC).UnixMilli()
	for _, c := range []struct {
		in   string
		at   int64
		txid uint64
		err  string
	}{
		{in: "2026-01-02T09:50:00Z", at: now - 10*60*1000},
		{in: "-10m", at: now - 10*60*1000},
		{in: " -1h30m ", at: now - 90*60*1000},
		{in: "now", at: now},
		{in: "1767340000000", at: 1767340000000},
		{in: "txid:42", txid: 42},
		{in: "TXID:42", txid: 42},
		{in: "poll:7", txid: 7},
		{in: "txid:00000000000003e8", txid: 1000},
		{in: "txid:0", err: "from 1"},
		{in: "txid:", err: "wants a number"},
		{in: "txid:-3", err: "from 1"},
		{in: "+5m", err: "in the future"},
		{in: "2027-01-01T00:00:00Z", err: "in the future"},
		{in: "yesterday", err: "RFC 3339"},
		{in: "", err: "empty time"},
		{in: "-10x", err: "not a Go duration"},
	} {
		got, err := ParseSpec(c.in, now)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseSpec(%q) = %+v, %v; want an error with %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got.At != c.at || got.TXID != c.txid {
			t.Errorf("ParseSpec(%q) = %+v, %v; want at %d txid %d", c.in, got, err, c.at, c.txid)
		}
	}
}

// FuzzParseSpec: any text is a spec or a clear error, never a panic; a
// spec is in the past or a txid from 1, and its error quotes the text
// safely (no control characters reach the terminal).
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"-10m", "txid:42", "2026-01-02T00:00:00Z", "now", "txid:00000000000003e8", "\x1b[31m", "txid:\u202e"} {
		f.Add(s)
	}
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC).UnixMilli()
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseSpec(s, now)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\x1b\r\n\u202e") {
				t.Fatalf("error holds raw control text: %q", err.Error())
			}
			return
		}
		if got.TXID == 0 && got.At > now {
			t.Fatalf("%q: a point in the future: %+v", s, got)
		}
	})
}
