package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
)

// ParseKey reads a key typed by a user: key text (`["users", "alice"]`) or
// the tagged JSON array. what names the argument in the error ("KEY",
// "--start"); the error keeps the codec's column and wraps codec.ErrSyntax.
func ParseKey(what, s string) (codec.Key, error) {
	k, err := codec.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, shown(s), err)
	}
	if _, err := codec.Encode(k); err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, shown(s), err)
	}
	return k, nil
}

// ParseOptionalKey is ParseKey for an optional argument: "" is nil (not
// set), which ListOptions and SweepOptions read as "no bound".
func ParseOptionalKey(what, s string) (codec.Key, error) {
	if s == "" {
		return nil, nil
	}
	return ParseKey(what, s)
}

// ParseValue validates a JSON value typed by a user and returns it as the
// reference stores it (JSON.stringify(JSON.parse(s))). NaN, trailing text
// and the like are refused with the byte offset.
func ParseValue(what string, s []byte) ([]byte, error) {
	v, err := codec.NormalizeJSON(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return v, nil
}

// ParseTime reads a TIME argument (usertext.ParseTime): epoch milliseconds
// ("1767312000000"), an RFC 3339 time ("2026-01-02T00:00:00Z", fractions
// allowed), "now", or a Go duration relative to now ("+5m", "-30s"). It
// returns epoch milliseconds; now is the (virtual) current time in epoch
// milliseconds.
func ParseTime(s string, now int64) (int64, error) {
	ms, err := usertext.ParseTime(s, now)
	if err != nil && strings.TrimSpace(s) != "" {
		return 0, fmt.Errorf("time %s: %w", shown(s), err)
	}
	return ms, err
}

// ParseExpireIn reads a Go duration for a TTL ("30s", "1m30s", "250ms").
// It must be a whole number of milliseconds, the store's resolution. Zero
// or negative is allowed and, as in the reference, writes a row that is
// already expired.
func ParseExpireIn(what, s string) (time.Duration, error) {
	d, err := usertext.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", what, shown(s), err)
	}
	return d, nil
}

// OpenInput opens a FILE argument: "-" is stdin (not closed by the
// returned closer), anything else a file.
func OpenInput(path string, stdin io.Reader) (io.ReadCloser, error) {
	if path == "-" {
		return io.NopCloser(stdin), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open input: %w", err)
	}
	return f, nil
}

// shown quotes user input for an error message when it holds anything a
// terminal would hide or break on; plain input is shown as typed.
func shown(s string) string {
	const maxShown = 120
	for _, r := range s {
		if !unicode.IsPrint(r) || r == '\u2028' || r == '\u2029' {
			s = strconv.Quote(s)
			break
		}
	}
	if len(s) <= maxShown {
		return s
	}
	n := maxShown
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
