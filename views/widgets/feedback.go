package widgets

import (
	"fmt"

	"kvdeck/codec"
	"kvdeck/themes"
)

// KeyFeedback is the live parse result of typed key text: the key drawn
// part by part, or the parser's error.
func KeyFeedback(st themes.Styles, text string) string {
	k, err := codec.Parse(text)
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
