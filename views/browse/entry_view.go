package browse

import (
	"encoding/hex"
	"fmt"

	"github.com/charmbracelet/lipgloss"

	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// entryLines renders the entry pane for the selection: its title and the
// body lines, w cells wide. It reads nothing but the loaded state and the
// clock (for the countdown).
func (m Model) entryLines(w int) (string, []string) {
	st := m.styles
	n := m.entry.node
	switch {
	case n == nil:
		return st.PaneTitle.Render("ENTRY"), []string{st.Muted.Render("Select a key on the left.")}
	case n.kind == nodeUndecodable:
		return st.PaneTitle.Render("UNDECODABLE ROWS"), m.undecodableLines(n, w)
	case !m.entry.wanted:
		return st.PaneTitle.Render("PREFIX"), m.prefixLines(n, w)
	}
	title := st.PaneTitle.Render("ENTRY")
	switch {
	case m.entry.err != nil:
		return title, m.wrapText("✗ "+m.entry.err.Error(), st.Error, w)
	case !m.entry.loaded:
		return title, []string{st.Muted.Render("loading…")}
	case !m.entry.found:
		out := m.field("key", widgets.KeySpans(st, n.key), w)
		return title, append(out, m.wrapText(views.Hint("No row here any more: it was deleted or swept after the tree was read. %s reloads.", m.keys.Reload), st.Warn, w)...)
	case m.pane.seen.showing:
		return st.PaneTitle.Render("CHANGED SINCE YOU LOOKED"), m.seenDiffLines(w, m.entryRows())
	}
	return title, m.rowLines(m.entry.e, n, w)
}

// rowLines renders a stored row: key, hex, stamp, size, expiry, value.
func (m Model) rowLines(e store.Entry, n *node, w int) []string {
	st := m.styles
	now := m.deps.Now()
	live := e.Live(now)
	var out []string
	if !live {
		ago := widgets.MsUntil(now, *e.ExpiresAt)
		out = append(out, m.wrapText(fmt.Sprintf("✗ expired %s ago, not swept: invisible to every read until a sweep removes it", widgets.Human(ago)), st.Warn, w)...)
	}
	keyLine := widgets.Line{{Text: "✗ does not decode: " + fmt.Sprint(e.KeyErr), Style: st.Error}}
	if e.KeyErr == nil {
		keyLine = widgets.KeySpans(st, e.Key)
	}
	if !live {
		keyLine = keyLine.Restyle(st.Expired)
	}
	out = append(out, m.field("key", keyLine, w)...)
	out = append(out, m.field("hex", widgets.Line{{Text: hex.EncodeToString(e.Raw), Style: st.Muted}}, w)...)
	out = append(out, m.field("stamp", widgets.Line{{Text: e.Versionstamp(), Style: st.Text}}, w)...)
	out = append(out, m.nowLines(w, min(6, m.entryRows()/3))...)
	out = append(out, m.changedLines(e, w)...)
	out = append(out, m.field("size", widgets.Line{{Text: fmt.Sprintf("key %d B · value %d B", len(e.Raw), m.entry.size), Style: st.Text}}, w)...)
	out = append(out, m.field("expires", m.expiryLine(e, now), w)...)
	if n.kind == nodePart && n.hasChildren() {
		out = append(out, m.field("prefix", widgets.Line{{Text: fmt.Sprintf("also the prefix of %s more row(s)", countText(n.count-1, n.capped)), Style: st.Muted}}, w)...)
	}
	values, note, valid := m.pane.cache.Lines(st, m.entry.answers, e.Value, w, live)
	head := widgets.Line{{Text: "JSON", Style: st.OK}}
	if m.entry.cut { // the read took the head only (entry.HeadCap)
		valid = m.entry.json
		note = fmt.Sprintf("value is %s: its first %s shown; %s reads it all, %s pipes it",
			widgets.BytesText(m.entry.size), widgets.BytesText(widgets.ValueCap), views.KeyName(m.keys.Read), views.KeyName(m.keys.Pager))
	}
	if !valid {
		head = widgets.Line{{Text: "✗ not valid JSON: shown raw", Style: st.Error}}
	}
	out = append(append(out, ""), m.field("value", head, w)...)
	if note != "" {
		out = append(out, m.wrapText("✂ "+note, st.Warn, w)...)
	}
	out = append(out, values...)
	if note != "" {
		out = append(out, m.wrapText("✂ …", st.Warn, w)...)
	}
	return append(append(out, ""), m.actionHint(w)...)
}

// expiryLine is the absolute expiry time and the live countdown.
func (m Model) expiryLine(e store.Entry, now int64) widgets.Line {
	st := m.styles
	if e.ExpiresAt == nil {
		return widgets.Line{{Text: "never", Style: st.Text}}
	}
	at := usertext.FormatTime(*e.ExpiresAt)
	left := widgets.MsUntil(*e.ExpiresAt, now)
	if left <= 0 {
		return widgets.Line{{Text: at, Style: st.Expired}, {Text: " · " + widgets.Countdown(left) + ", not swept", Style: st.Warn}}
	}
	return widgets.Line{{Text: at, Style: st.Text}, {Text: " · " + widgets.Countdown(left), Style: st.Accent}}
}

// prefixLines describes a node that is a prefix only.
func (m Model) prefixLines(n *node, w int) []string {
	st := m.styles
	out := m.field("prefix", widgets.KeySpans(st, n.key), w)
	out = append(out, m.field("hex", widgets.Line{{Text: hex.EncodeToString(n.raw), Style: st.Muted}}, w)...)
	out = append(out, m.field("rows", widgets.Line{{Text: countText(n.count, n.capped) + " under this prefix", Style: st.Text}}, w)...)
	out = append(out, "")
	text := views.Hint("Not a stored key itself. %s or %s expands it; %s adds a key under it.", m.keys.Expand, m.keys.Toggle, m.keys.New)
	if m.readOnly {
		text = views.Hint("Not a stored key itself. %s or %s expands it.", m.keys.Expand, m.keys.Toggle)
	}
	out = append(out, m.wrapText(text, st.Muted, w)...)
	return out
}

// undecodableLines explains the (undecodable) group.
func (m Model) undecodableLines(n *node, w int) []string {
	text := fmt.Sprintf("%d row(s) under this prefix have a key whose next part does not decode "+
		"(a foreign writer, or corruption). They are listed as raw hex; select one to see its row. "+
		"kvdeck cannot address them by key, so it cannot edit or delete them.", n.count)
	return m.wrapText(text, m.styles.Warn, w)
}

// actionHint tells what can be done with the entry, or why not.
func (m Model) actionHint(w int) []string {
	if m.deps.Live != nil {
		return m.wrapText("a point of the past, read-only: P puts it back as then (asks) · H its history · y copies the key", m.styles.Warn, w)
	}
	if m.readOnly {
		return m.wrapText(views.Hint("read-only: editing, new keys and deleting are disabled (the store is open read-only). %s copies the key.", m.keys.Copy), m.styles.Warn, w)
	}
	return m.wrapText(views.Hint("%s edit · %s delete · %s copy key · %s new key", m.keys.Edit, m.keys.Delete, m.keys.Copy, m.keys.New), m.styles.Muted, w)
}

// field renders "label   value", wrapping the value under itself.
func (m Model) field(label string, val widgets.Line, w int) []string {
	l := append(widgets.Line{{Text: fmt.Sprintf("%-*s", widgets.LabelWidth, label), Style: m.styles.Label}}, val...)
	var out []string
	for _, wl := range l.Wrap(w, widgets.LabelWidth) {
		out = append(out, wl.Render(false))
	}
	return out
}

// wrapText word-wraps prose in one style.
func (m Model) wrapText(text string, style lipgloss.Style, w int) []string {
	return widgets.ProseLines(text, style, w)
}

// countText is a row count, with "+" when it stopped at the bound.
func countText(n int64, capped bool) string {
	if capped {
		return fmt.Sprintf("%d+", n)
	}
	return fmt.Sprint(n)
}
