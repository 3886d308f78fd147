package coord

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
)

// Severity ranks a finding.
type Severity string

// The severities, most severe first. Doctor exits 1 when any finding is an
// error: something is lost or stuck and will not heal by itself.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

func (s Severity) rank() int {
	switch s {
	case SeverityError:
		return 0
	case SeverityWarning:
		return 1
	case SeverityInfo:
	}
	return 2
}

// Finding is one thing an operator should know about the store.
type Finding struct {
	Severity Severity
	// Code is a stable short id, e.g. "alarm.never-fires".
	Code string
	// Key is the row concerned; nil for store-wide findings.
	Key codec.Key
	// Message says what is wrong, why it matters and, where there is one,
	// the fix.
	Message string
}

// String is the finding as one text line:
// `error  alarm.never-fires  ["dwk_alarm_by_id", "Cart", "…"]  message`
// (a "-" stands for no key).
func (f Finding) String() string {
	k := "-"
	if f.Key != nil {
		k = codec.Format(f.Key)
	}
	return string(f.Severity) + "  " + f.Code + "  " + k + "  " + f.Message
}

// MarshalJSON writes {"severity","code","key","message"} with the key in
// tagged JSON (null when there is none).
func (f Finding) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"severity":`)
	writeJSON(&b, string(f.Severity))
	b.WriteString(`,"code":`)
	writeJSON(&b, f.Code)
	b.WriteString(`,"key":`)
	if f.Key == nil {
		b.WriteString("null")
	} else {
		tagged, err := codec.MarshalTagged(f.Key)
		if err != nil {
			return nil, err
		}
		b.Write(tagged)
	}
	b.WriteString(`,"message":`)
	writeJSON(&b, f.Message)
	b.WriteString("}")
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // Encode adds a newline
}

// HasErrors reports whether any finding is an error.
func HasErrors(fs []Finding) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Severity == SeverityError })
}

// SortFindings orders findings by severity, then code, then key.
func SortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		if d := a.Severity.rank() - b.Severity.rank(); d != 0 {
			return d
		}
		if c := strings.Compare(a.Code, b.Code); c != 0 {
			return c
		}
		return codec.Compare(a.Key, b.Key)
	})
}

// MaxFindingsPerCode caps the findings of one code in Doctor; the rest are
// summed up in one more finding of that code.
const MaxFindingsPerCode = 50

// capFindings keeps the first MaxFindingsPerCode findings of each code
// (in the given order) and summarises the rest.
func capFindings(fs []Finding) []Finding {
	seen := map[string]int{}
	var out []Finding
	for _, f := range fs {
		seen[f.Code]++
		if seen[f.Code] <= MaxFindingsPerCode {
			out = append(out, f)
		}
	}
	for _, f := range fs {
		if n := seen[f.Code] - MaxFindingsPerCode; n > 0 {
			out = append(out, Finding{Severity: f.Severity, Code: f.Code, Message: fmt.Sprintf("and %d more %s findings like the ones above", n, f.Code)})
			seen[f.Code] = 0
		}
	}
	return out
}

// Thresholds of the inspection.
const (
	// PollerGrace is how late an alarm, a ready queue message or an expired
	// row may be before it is a warning rather than information: replicas
	// poll and sweep about every 1–1.2 s, so five seconds means several
	// polls were missed.
	PollerGrace = 5 * time.Second
	// LongHeld is the age at which a lease (with the default TTL) points to
	// a hung holder: a lease is held for one request.
	LongHeld = 10 * time.Second
	// ExpiringShare: a lease with at most this share of its TTL left is
	// "expiring".
	ExpiringShare = 0.2
)

// when formats epoch ms as the CLI and the TUI write an instant.
func when(ms int64) string { return usertext.FormatTime(ms) }

// span formats a duration in ms as the CLI and the TUI write one
// (usertext.DurationText: "1m30s", "338d4h"), fleet's cells included.
func span(ms int64) string { return usertext.DurationText(ms) }

// lateness picks info or warning for something late by ms.
func lateness(ms int64) Severity {
	if ms > PollerGrace.Milliseconds() {
		return SeverityWarning
	}
	return SeverityInfo
}
