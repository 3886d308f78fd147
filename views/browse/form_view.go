package browse

import (
	"fmt"
	"strings"
	"time"

	"kvdeck/views/widgets"
)

// View renders the form: title, the guard it saves under, the fields with
// their live validation, and any conflict.
func (f entryForm) View(now int64) string {
	st := f.styles
	var out []string
	if f.isNew {
		out = append(out, st.PaneTitle.Render("NEW KEY"), f.keyIn.View(), "     "+f.keyStatus())
	} else {
		out = append(out, st.PaneTitle.Render("EDIT ")+widgets.KeySpans(st, f.key).Render(false))
		guard := "saves only if the key is still at stamp " + f.stamp
		if f.stamp == "" {
			guard = "saves only if the key is still absent or expired"
		}
		out = append(out, st.Muted.Render(guard))
	}
	out = append(out, f.value.View(), f.valueStatus(), f.ttl.View(), "     "+f.ttlHint(now))
	switch {
	case f.saving:
		out = append(out, st.Muted.Render("saving…"))
	case f.reloading:
		out = append(out, st.Muted.Render("reloading…"))
	case f.conflict != "":
		out = append(out, widgets.ProseLines("✗ "+f.conflict, st.FlashError, f.width)...)
	case f.notice != "":
		out = append(out, widgets.ProseLines(f.notice, st.FlashInfo, f.width)...)
	}
	return strings.Join(out, "\n")
}

func (f entryForm) keyStatus() string { return widgets.KeyFeedback(f.styles, f.keyIn.Value()) }

func (f entryForm) valueStatus() string { return widgets.JSONFeedback(f.styles, f.value.Value()) }

func (f entryForm) ttlHint(now int64) string {
	hint := "none = no expiry · or a duration: 30s, 5m"
	if f.expiresAt != nil {
		left := time.Duration(*f.expiresAt-now) * time.Millisecond
		hint = fmt.Sprintf("keep = the remaining %s · ", widgets.Human(max(left, 0))) + hint
	}
	if _, err := f.expireIn(now); err != nil {
		return f.styles.Error.Render("✗ " + err.Error())
	}
	return f.styles.Muted.Render(hint)
}
