package views

import (
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/store"
)

// entryLines renders the entry pane for the selection: its title and the
// body lines, w cells wide. It reads nothing but the loaded state and the
// clock (for the countdown).
func (m Browse) entryLines(w int) (string, []string) {
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
		out := m.field("key", keySpans(st, n.key), w)
		return title, append(out, m.wrapText("No row here any more: it was deleted or swept after the tree was read. r reloads.", st.Warn, w)...)
	}
	return title, m.rowLines(m.entry.e, n, w)
}

// rowLines renders a stored row: key, hex, stamp, size, expiry, value.
func (m Browse) rowLines(e store.Entry, n *node, w int) []string {
	st := m.styles
	now := m.deps.Now()
	live := e.Live(now)
	var out []string
	if !live {
		ago := time.Duration(now-*e.ExpiresAt) * time.Millisecond
		out = append(out, m.wrapText(fmt.Sprintf("✗ expired %s ago, not swept: invisible to every read until a sweep removes it", human(ago)), st.Warn, w)...)
	}
	keyLine := line{{"✗ does not decode: " + fmt.Sprint(e.KeyErr), st.Error}}
	if e.KeyErr == nil {
		keyLine = keySpans(st, e.Key)
	}
	if !live {
		keyLine = keyLine.restyle(st.Expired)
	}
	out = append(out, m.field("key", keyLine, w)...)
	out = append(out, m.field("hex", line{{hex.EncodeToString(e.Raw), st.Muted}}, w)...)
	out = append(out, m.field("stamp", line{{e.Versionstamp(), st.Text}}, w)...)
	out = append(out, m.field("size", line{{fmt.Sprintf("key %d B · value %d B", len(e.Raw), len(e.Value)), st.Text}}, w)...)
	out = append(out, m.field("expires", m.expiryLine(e, now), w)...)
	if n.kind == nodePart && n.hasChildren() {
		out = append(out, m.field("prefix", line{{fmt.Sprintf("also the prefix of %s more row(s)", countText(n.count-1, n.capped)), st.Muted}}, w)...)
	}
	values, valid := jsonLines(st, e.Value)
	head := line{{"JSON", st.OK}}
	if !valid {
		head = line{{"✗ not valid JSON: shown raw", st.Error}}
	}
	out = append(append(out, ""), m.field("value", head, w)...)
	for _, l := range values {
		if !live {
			l = l.restyle(st.Expired)
		}
		for _, wl := range l.wrap(w, 0) {
			out = append(out, wl.render(false))
		}
	}
	return append(append(out, ""), m.actionHint(w)...)
}

// expiryLine is the absolute expiry time and the live countdown.
func (m Browse) expiryLine(e store.Entry, now int64) line {
	st := m.styles
	if e.ExpiresAt == nil {
		return line{{"never", st.Text}}
	}
	at := time.UnixMilli(*e.ExpiresAt).UTC().Format(time.RFC3339Nano)
	left := time.Duration(*e.ExpiresAt-now) * time.Millisecond
	if left <= 0 {
		return line{{at, st.Expired}, {" · " + countdown(left) + ", not swept", st.Warn}}
	}
	return line{{at, st.Text}, {" · " + countdown(left), st.Accent}}
}

// prefixLines describes a node that is a prefix only.
func (m Browse) prefixLines(n *node, w int) []string {
	st := m.styles
	out := m.field("prefix", keySpans(st, n.key), w)
	out = append(out, m.field("hex", line{{hex.EncodeToString(n.raw), st.Muted}}, w)...)
	out = append(out, m.field("rows", line{{countText(n.count, n.capped) + " under this prefix", st.Text}}, w)...)
	out = append(out, "")
	out = append(out, m.wrapText("Not a stored key itself. → or enter expands it; n adds a key under it.", st.Muted, w)...)
	return out
}

// undecodableLines explains the (undecodable) group.
func (m Browse) undecodableLines(n *node, w int) []string {
	text := fmt.Sprintf("%d row(s) under this prefix have a key whose next part does not decode "+
		"(a foreign writer, or corruption). They are listed as raw hex; select one to see its row. "+
		"kvdeck cannot address them by key, so it cannot edit or delete them.", n.count)
	return m.wrapText(text, m.styles.Warn, w)
}

// actionHint tells what can be done with the entry, or why not.
func (m Browse) actionHint(w int) []string {
	if m.readOnly {
		return m.wrapText("read-only: editing, new keys and deleting are disabled (opened with --read-only). y copies the key.", m.styles.Warn, w)
	}
	return m.wrapText("e edit · d delete · y copy key · n new key", m.styles.Muted, w)
}

// field renders "label   value", wrapping the value under itself.
func (m Browse) field(label string, val line, w int) []string {
	l := append(line{{fmt.Sprintf("%-*s", labelWidth, label), m.styles.Label}}, val...)
	var out []string
	for _, wl := range l.wrap(w, labelWidth) {
		out = append(out, wl.render(false))
	}
	return out
}

// wrapText word-wraps prose in one style.
func (m Browse) wrapText(text string, style lipgloss.Style, w int) []string {
	lines := strings.Split(ansi.Wrap(text, w, ""), "\n")
	for i, l := range lines {
		lines[i] = style.Render(l)
	}
	return lines
}

// countText is a row count, with "+" when it stopped at the bound.
func countText(n int64, capped bool) string {
	if capped {
		return fmt.Sprintf("%d+", n)
	}
	return fmt.Sprint(n)
}
