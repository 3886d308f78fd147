package widgets

import (
	"bytes"
	"encoding/json"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
)

// RowImage is a row as a preview of a write shows it: its value (JSON
// text) and expiry (epoch ms, nil for none). A nil *RowImage is no row.
type RowImage struct {
	Value     []byte
	ExpiresAt *int64
}

// changeContext is how many characters of the text both sides share are
// kept on each side of what differs.
const changeContext = 16

// ChangeLines says in two lines what a write changes from before to after
// (old → new), as the confirmations and the undo preview show it: the
// value, cut to the part that differs with a little of the shared text on
// each side, and the expiry. A side that is nil has no row. Lines name
// what stays the same, so a dialog never shows an empty change.
func ChangeLines(before, after *RowImage) []string {
	switch {
	case before == nil && after == nil:
		return []string{"value   no row → no row (nothing changes)"}
	case before == nil:
		return []string{"value   (no row) → " + ClipText(compactJSON(after.Value), 60), "expires (no row) → " + expiryText(after.ExpiresAt)}
	case after == nil:
		return []string{"value   " + ClipText(compactJSON(before.Value), 60) + " → (no row: deleted)", "expires " + expiryText(before.ExpiresAt) + " → (no row)"}
	}
	old, new := compactJSON(before.Value), compactJSON(after.Value)
	value := "value   unchanged: " + ClipText(old, 60)
	if normalJSON(before.Value) != normalJSON(after.Value) {
		a, b := differingParts(old, new)
		value = "value   " + a + " → " + b
	}
	exp := "expires unchanged: " + expiryText(before.ExpiresAt)
	if !sameExpiry(before.ExpiresAt, after.ExpiresAt) {
		exp = "expires " + expiryText(before.ExpiresAt) + " → " + expiryText(after.ExpiresAt)
	}
	return []string{value, exp}
}

// Unchanged reports whether after writes exactly what before holds: the
// same JSON value (compared normalized, as the store keeps it) and the
// same expiry.
func Unchanged(before, after *RowImage) bool {
	if before == nil || after == nil {
		return before == nil && after == nil
	}
	return normalJSON(before.Value) == normalJSON(after.Value) && sameExpiry(before.ExpiresAt, after.ExpiresAt)
}

func sameExpiry(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func expiryText(at *int64) string {
	if at == nil {
		return "never"
	}
	return usertext.FormatTime(*at)
}

// compactJSON is value normalized as the store keeps it (JSON.stringify's
// text: no insignificant space, numbers and escapes as JavaScript writes
// them), else compacted, else as is; sanitized for the terminal.
func compactJSON(v []byte) string { return Sanitize(normalJSON(v)) }

// normalJSON is v normalized (else compacted, else as is), unsanitized:
// what two values are compared by.
func normalJSON(v []byte) string {
	if n, err := codec.NormalizeJSON(v); err == nil {
		return string(n)
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// differingParts cuts a and b to what differs between them, keeping
// changeContext runes of the shared text on each side (… where cut).
func differingParts(a, b string) (string, string) {
	ra, rb := []rune(a), []rune(b)
	pre := 0
	for pre < len(ra) && pre < len(rb) && ra[pre] == rb[pre] {
		pre++
	}
	suf := 0
	for suf < len(ra)-pre && suf < len(rb)-pre && ra[len(ra)-1-suf] == rb[len(rb)-1-suf] {
		suf++
	}
	cut := func(r []rune) string {
		from, to := max(pre-changeContext, 0), min(len(r)-suf+changeContext, len(r))
		s := string(r[from:to])
		if to-from > 2*changeContext+40 {
			// A long change: its start and its end.
			mid := []rune(s)
			s = string(mid[:changeContext+20]) + "…" + string(mid[len(mid)-changeContext-20:])
		}
		if from > 0 {
			s = "…" + s
		}
		if to < len(r) {
			s += "…"
		}
		return s
	}
	return cut(ra), cut(rb)
}
