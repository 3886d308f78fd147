package coordkit

import (
	"fmt"

	"kvdeck/themes"
	"kvdeck/views/widgets"
)

// Cover is what a tab shows in place of its own view: its fleet mode
// while on, else widgets.TooSmall on a screen smaller than minW x minH;
// ok is false when the tab draws its own view.
func (b Base) Cover(minW, minH int) (string, bool) {
	switch {
	case b.InFleet():
		return b.Fleet.View(b.Styles, b.Width, b.Height), true
	case b.Width < minW || b.Height < minH:
		return widgets.TooSmall, true
	}
	return "", false
}

// Hint is the line of a tab's actions under its list, fitted to w; in
// read-only mode, why there are none.
func (b Base) Hint(actions string, w int) string {
	if b.ReadOnly {
		return b.Styles.Warn.Render(widgets.FitWidth(widgets.ReadOnlyNote, w))
	}
	return b.Styles.Muted.Render(widgets.FitWidth(actions, w))
}

// Unready is what a list shows in place of its first rows while the last
// load failed (the error) or none has come in yet ("loading…"); nil once
// the rows are in.
func (b Base) Unready(w int) []string {
	st := b.Styles
	switch {
	case b.Err != nil:
		return widgets.ProseLines("✗ "+b.Err.Error(), st.Error, w)
	case !b.Loaded:
		return []string{st.Muted.Render("loading…")}
	}
	return nil
}

// Empty is what a list of no rows shows: that the filter f matches
// nothing, or, with no filter, none (what the store holds).
func Empty(st themes.Styles, f widgets.Filter, none string, w int) []string {
	if f.Text() != "" {
		return widgets.ProseLines(f.Nothing(), st.Muted, w)
	}
	return widgets.ProseLines(none, st.Muted, w)
}

// GroupsHead is the top of a two-list tab's left pane, w cells wide: its
// title with the number of groups shown, and the filter's line while it
// shows.
func GroupsHead(st themes.Styles, title string, n int, f widgets.Filter, w int) []string {
	lines := []string{widgets.Spread(st.PaneTitle.Render(title), st.Muted.Render(fmt.Sprint(n)), w)}
	if v := f.View(); v != "" {
		lines = append(lines, widgets.FitWidth(v, w))
	}
	return lines
}

// Position is "3/7" for an item list of n rows with the cursor at cur,
// after how many rows are marked (when any are).
func Position(st themes.Styles, marks widgets.Marks, cur, n int) string {
	marked := ""
	if marks.Len() > 0 {
		marked = st.Accent.Render(marks.Indicator()) + " "
	}
	if n == 0 {
		return marked
	}
	return marked + st.Muted.Render(fmt.Sprintf("%d/%d", cur+1, n))
}
