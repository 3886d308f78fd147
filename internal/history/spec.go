package history

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"kvdeck/internal/usertext"
)

// Spec is a point asked for (--at, STORE@TIME): an instant, or a position
// of the source (a Litestream TXID, a recorded poll).
type Spec struct {
	// Text is the spec as typed.
	Text string
	// At is the instant in epoch milliseconds; 0 when TXID names the point.
	At int64
	// TXID is the position asked for ("txid:N"); 0 when At names the point.
	TXID uint64
}

// ParseSpec reads a point: an RFC 3339 time, epoch milliseconds, a
// duration ago ("-10m", "-1h30m"), "now", or "txid:N" (N decimal, or the
// 16 hex digits Litestream prints; "poll:N" is the same, for a
// recording's points). now is the current time in epoch ms,
// against which a duration is read; a time after now is refused (the past
// only).
func ParseSpec(text string, now int64) (Spec, error) {
	t := strings.TrimSpace(text)
	lower := strings.ToLower(t)
	rest, ok := strings.CutPrefix(lower, "txid:")
	if !ok {
		rest, ok = strings.CutPrefix(lower, "poll:") // a recording's point
	}
	if ok {
		id, err := parseTXID(rest)
		if err != nil {
			return Spec{}, fmt.Errorf("%s: %w", shown(text), err)
		}
		return Spec{Text: t, TXID: id}, nil
	}
	ts, err := usertext.ParseTimeSpec(t)
	if err != nil {
		if errors.Is(err, usertext.ErrNotTime) {
			return Spec{}, fmt.Errorf("%s: want an RFC 3339 time (2026-01-02T15:04:05Z), epoch milliseconds, a duration ago (-10m), now, or txid:N", shown(text))
		}
		return Spec{}, fmt.Errorf("%s: %w", shown(text), err)
	}
	at, err := ts.Resolve(now)
	if err != nil {
		return Spec{}, fmt.Errorf("%s: %w", shown(text), err)
	}
	if at > now {
		return Spec{}, fmt.Errorf("%s is in the future (%s); a point is in the past: -10m is ten minutes ago", shown(text), usertext.FormatTimeFixed(at))
	}
	return Spec{Text: t, At: at}, nil
}

// parseTXID reads N of txid:N: decimal, or exactly 16 hex digits (how
// Litestream writes a TXID, e.g. 00000000000003e8).
func parseTXID(s string) (uint64, error) {
	if s == "" {
		return 0, errors.New("txid: wants a number (txid:42, or the 16 hex digits litestream ltx prints)")
	}
	base := 10
	if len(s) == 16 {
		base = 16
	}
	id, err := strconv.ParseUint(s, base, 64)
	if err != nil || id == 0 {
		return 0, errors.New("txid: wants a number from 1 (decimal, or the 16 hex digits litestream ltx prints)")
	}
	return id, nil
}

// String is the spec as the user typed it.
func (s Spec) String() string { return s.Text }

// shown quotes user text for an error (sanitised, so that it cannot act
// on a terminal).
func shown(s string) string { return strconv.Quote(usertext.Sanitize(s)) }
