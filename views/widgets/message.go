package widgets

import (
	"github.com/charmbracelet/x/ansi"
)

// minKeyCells is the fewest cells a key keeps when a message is fitted:
// its start and its end, around "…".
const minKeyCells = 12

// FitMessage fits a one-line message (plain text, already sanitized) to
// w cells. A message too wide gives up the middle of its keys first (the
// bracketed parts, such as ["users", "alice"]), longest first, so that
// what it says of them (the verb: "deleted", "is gone") stays; only when
// the keys are as short as they go, or leave enough words before the
// cut, is the end cut (at
// 60 columns flashes kept the key and lost the verb).
func FitMessage(text string, w int) string {
	for ansi.StringWidth(text) > w {
		start, end := longestKey(text, w)
		if start < 0 {
			break
		}
		key := text[start:end]
		kw := ansi.StringWidth(key)
		if kw <= minKeyCells {
			break
		}
		keep := max(kw-(ansi.StringWidth(text)-w), minKeyCells) - 1 // the "…"
		head := (keep + 1) / 2
		short := ansi.Truncate(key, head, "") + "…" + ansi.TruncateLeft(key, kw-(keep-head), "")
		text = text[:start] + short + text[end:]
	}
	if ansi.StringWidth(text) > w {
		return ansi.Truncate(text, w, "…")
	}
	return text
}

// minAfter is how much of what follows a key a cut at the end must leave
// for the key to keep its length: at least the start of what is said of
// it.
const minAfter = 16

// longestKey is the byte range of the widest bracketed part of text that
// can still be shortened ([ to its matching ], brackets inside quoted
// strings not counted) and that a cut at w cells would leave too little
// after, or -1, -1: a key followed by enough words before the cut keeps
// its length (the words after those are in the log).
func longestKey(text string, w int) (int, int) {
	bestStart, bestEnd, bestW := -1, -1, minKeyCells
	for i := 0; i < len(text); i++ {
		if text[i] != '[' {
			continue
		}
		end := matchBracket(text, i)
		if end < 0 {
			continue
		}
		if kw := ansi.StringWidth(text[i:end]); kw > bestW && ansi.StringWidth(text[:end])+minAfter > w {
			bestStart, bestEnd, bestW = i, end, kw
		}
		i = end - 1
	}
	return bestStart, bestEnd
}

// matchBracket is the byte just after the ] that closes the [ at i, or -1.
func matchBracket(text string, i int) int {
	depth, quoted := 0, false
	for j := i; j < len(text); j++ {
		switch c := text[j]; {
		case quoted && c == '\\':
			j++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '[':
			depth++
		case c == ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}
