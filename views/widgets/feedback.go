package widgets

import (
	"fmt"
	"strings"

	"kvdeck/codec"
	"kvdeck/themes"
)

// KeySyntax is the hint every prompt that takes a key shows: what
// codec.Parse reads (the key text syntax; the tagged JSON array is
// accepted too, but nobody types it).
const KeySyntax = `["users", 42]: a list of parts: "text", 42, 7n (bigint), true, b"00ff" (bytes)`

// ParseKey reads typed key text with codec.Parse. A bare word is not a
// key: `users` could be ["users"] but `42` or `true`
// could not say which part it is, and the key fields write and check keys
// exactly, so the prompt does not guess; its error says what to type
// (write ["users"]). Activity's filter takes a bare word as a word to find
// in the key text instead.
func ParseKey(text string) (codec.Key, error) {
	k, err := codec.Parse(text)
	if err != nil {
		return nil, keyHowTo(text, err)
	}
	return k, nil
}

// keyHowTo adds to a parse error of typed key text how to write it: the
// text as the one-part key it most likely is, or the syntax.
func keyHowTo(text string, err error) error {
	t := strings.TrimSpace(text)
	switch {
	case t == "":
		return fmt.Errorf("type a key: %s", KeySyntax)
	case strings.HasPrefix(t, "["):
		return fmt.Errorf("%w (a key: %s)", err, KeySyntax)
	}
	// The advice comes first: a narrow form cuts the end of the line.
	if k, perr := codec.Parse("[" + t + "]"); perr == nil {
		return fmt.Errorf("write %s: a key is a list of parts (%w)", codec.Format(k), err)
	}
	if !strings.ContainsAny(t, "\"[],") {
		return fmt.Errorf("write %s: a key is a list of parts (%w)", codec.Format(codec.Key{codec.String(t)}), err)
	}
	return fmt.Errorf("%w (a key: %s)", err, KeySyntax)
}

// KeyFeedback is the live parse result of typed key text: the key drawn
// part by part, the syntax while the field is empty, or the parser's
// error with how to write the key.
func KeyFeedback(st themes.Styles, text string) string {
	if strings.TrimSpace(text) == "" {
		return st.Muted.Render("key " + KeySyntax)
	}
	k, err := ParseKey(text)
	if err != nil {
		return st.Error.Render("✗ " + err.Error())
	}
	return st.OK.Render("✓ ") + KeySpans(st, k).Render(false)
}

// JSONFeedback is the live validation of a typed JSON value.
func JSONFeedback(st themes.Styles, v string) string {
	if _, err := codec.NormalizeJSON([]byte(v)); err != nil {
		return st.Error.Render("✗ invalid JSON: " + err.Error())
	}
	return st.OK.Render(fmt.Sprintf("✓ valid JSON · %d bytes", len(v)))
}
