package browse

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/valuefilter"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Bounds of one search call: the matches a page shows at most, and the
// rows one call examines before it answers (the next call continues from
// where it stopped, so a search of a million rows stays responsive and
// esc stops it between calls or inside one).
// New gives defaultSearchScan to the model (Model.searchScan); a test
// sets its own.
const (
	searchPage        = 200
	defaultSearchScan = 20000
)

// SearchKeys are the keys of the value search's results.
type SearchKeys struct {
	Up, Down key.Binding
	Open     key.Binding // show the match in the tree
	More     key.Binding // search on past the matches shown
	Close    key.Binding // stop the search and close the results
	Again    key.Binding // type another query (the results view)
	Scope    key.Binding // the selected prefix or the whole store (typing)
}

// DefaultSearchKeys returns the value search's default keys.
func DefaultSearchKeys() SearchKeys {
	return SearchKeys{
		Up:    key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:  key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Open:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "show the key in the tree")),
		More:  key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "more matches")),
		Close: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop and close the search")),
		Again: key.NewBinding(key.WithKeys("s", "/"), key.WithHelp("s", "another query")),
		Scope: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "under the prefix / the whole store")),
	}
}

// searchState is a value search under a prefix: the expression being
// typed, then its pages of matches.
type searchState struct {
	keys    SearchKeys
	input   textinput.Model
	typing  bool
	inputEr string // why the expression was refused

	prefix  codec.Key // where the search looks (nil: every key)
	near    codec.Key // the selected prefix when s was pressed: tab switches to it and back
	parked  bool      // enter showed a match in the tree; s comes back here
	matcher *valuefilter.Matcher
	results []store.Entry
	cur     int
	cursor  string // continues the search; "" when it is done
	scanned int
	failed  int
	firstEr string
	running bool
	cancel  context.CancelFunc
	gen     int
	err     error
}

// searched answers searchValues.
type searched struct {
	session, gen int
	page         valuefilter.SearchPage
	err          error
}

// searchValues examines the live rows under opts.Prefix from opts.Cursor
// and answers the next matches (at most searchPage, after at most scan
// rows); ctx is the search's own, cancelled by esc. Each call
// reads its rows in one streamed request over HTTP (pages elsewhere),
// under its own deadline, wait (issue 20 point 7: one deadline over the
// whole search ran out after 15k rows over a 300 ms link, when a call
// was 40 page requests); a call that fails answers the matches found
// before it and the cursor to resume at.
func searchValues(ctx context.Context, src *store.Store, session, gen int, opts store.ListOptions, m *valuefilter.Matcher, scan int, wait time.Duration) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		p, err := valuefilter.Search(ctx, src, opts, m, searchPage, scan)
		return searched{session: session, gen: gen, page: p, err: err}
	}
}

// startSearch opens the search input for the selected node's prefix (the
// whole store on an undecodable row or nothing; tab switches). After enter
// showed a match in the tree, s comes back to the query and its results
// (issue 22 point 8: they vanished).
func (m *Model) startSearch() tea.Cmd {
	if m.search != nil && m.search.parked {
		m.search.parked = false
		return nil
	}
	s := &searchState{keys: DefaultSearchKeys(), typing: true}
	if n := m.selected(); n != nil && n.kind == nodePart {
		s.prefix, s.near = n.key, n.key
	}
	s.input = widgets.NewInput("search ", `.plan == "gold"  (jq; a leading "." or jq:)  or text to find`, m.styles)
	s.input.Width = m.entryInner() - 8
	m.search = s
	return s.input.Focus()
}

// parseSearch reads the typed text: a jq expression when it starts with
// "." or "jq:", otherwise a substring of the stored value text.
func parseSearch(text string) (*valuefilter.Matcher, error) {
	switch t := strings.TrimSpace(text); {
	case t == "":
		return nil, errors.New("type a jq expression (.field == 1) or text to find")
	case strings.HasPrefix(t, "jq:"):
		return valuefilter.Jq(strings.TrimSpace(strings.TrimPrefix(t, "jq:")))
	case strings.HasPrefix(t, "."):
		return valuefilter.Jq(t)
	default:
		return valuefilter.Contains(text)
	}
}

// runSearch starts the next call of the search from its cursor.
func (m *Model) runSearch() tea.Cmd {
	s := m.search
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel, s.running = cancel, true
	s.gen = m.nextTag()
	wait := m.searchWait
	if wait <= 0 {
		wait = views.ReadTimeout
	}
	return searchValues(ctx, m.deps.Store, m.deps.Session, s.gen, store.ListOptions{Prefix: s.prefix, Cursor: s.cursor}, s.matcher, m.searchScan, wait)
}

// stopSearch cancels a call in flight and closes the search.
func (m *Model) stopSearch() {
	if m.search != nil && m.search.cancel != nil {
		m.search.cancel()
	}
	m.search = nil
}

// handleSearch handles the keys while the search is open.
func (m Model) handleSearch(msg tea.KeyMsg) (Model, tea.Cmd) {
	s := m.search
	if s.typing {
		return m.handleSearchTyping(msg)
	}
	switch {
	case key.Matches(msg, s.keys.Close):
		m.stopSearch()
	case key.Matches(msg, s.keys.Up):
		s.cur = max(s.cur-1, 0)
	case key.Matches(msg, s.keys.Down):
		s.cur = min(s.cur+1, max(len(s.results)-1, 0))
	case key.Matches(msg, s.keys.More):
		// After an error the search resumes from the row it stopped at
		// (its cursor is "" only if it stopped before the first row).
		if !s.running && (s.cursor != "" || s.err != nil) {
			s.err = nil
			return m, m.runSearch()
		}
	case key.Matches(msg, s.keys.Again):
		// The new query looks under what is selected now (tab: every key).
		s.near = nil
		if n := m.selected(); n != nil && n.kind == nodePart {
			s.near = n.key
		}
		if s.prefix != nil || s.near == nil {
			s.prefix = s.near
		}
		s.typing = true
		s.input.CursorEnd()
		return m, s.input.Focus()
	case key.Matches(msg, s.keys.Open):
		if s.cur < len(s.results) {
			e := s.results[s.cur]
			if e.KeyErr != nil {
				return m, views.Flash(views.FlashInfo, "this row's key does not decode: it is under (undecodable)")
			}
			// The search stays, parked: s comes back to it.
			s.parked = true
			from, ok := m.Selected()
			m, cmd := m.Goto(e.Key)
			m.leftPlace(from, ok)
			return m, tea.Batch(cmd, views.Flash(views.FlashInfo, "s returns to the search results"))
		}
	}
	return m, nil
}

// handleSearchTyping handles the keys while the query is typed.
func (m Model) handleSearchTyping(msg tea.KeyMsg) (Model, tea.Cmd) {
	s := m.search
	switch {
	case key.Matches(msg, m.input.Cancel):
		m.stopSearch()
		return m, nil
	case key.Matches(msg, m.input.Accept):
		matcher, err := parseSearch(s.input.Value())
		if err != nil {
			s.inputEr = err.Error()
			return m, nil
		}
		if s.cancel != nil {
			s.cancel() // the previous query's call, if one runs
		}
		s.matcher, s.typing, s.inputEr = matcher, false, ""
		s.results, s.cur, s.cursor, s.scanned, s.failed, s.firstEr, s.err = nil, 0, "", 0, 0, "", nil
		s.input.Blur()
		return m, m.runSearch()
	case key.Matches(msg, s.keys.Scope):
		if s.prefix != nil {
			s.prefix = nil
		} else {
			s.prefix = s.near
		}
		return m, nil
	}
	var cmd tea.Cmd
	s.input, cmd = s.input.Update(msg)
	return m, cmd
}

// onSearched takes a call's matches; a call that stopped at its scan
// bound with no match yet goes on by itself (esc stops it).
func (m Model) onSearched(msg searched) (Model, tea.Cmd) {
	s := m.search
	if s == nil || msg.session != m.deps.Session || msg.gen != s.gen {
		return m, nil
	}
	s.running = false
	p := msg.page
	s.results = append(s.results, p.Entries...)
	s.scanned += p.Scanned
	s.failed += p.Failed
	if p.FirstFailure != nil && s.firstEr == "" {
		s.firstEr = fmt.Sprintf("%s: %v", codec.Format(p.FirstFailure.Entry.Key), p.FirstFailure.Err)
	}
	s.cursor, s.err = p.Cursor, msg.err
	if msg.err == nil && s.cursor != "" && len(p.Entries) == 0 {
		return m, m.runSearch()
	}
	return m, nil
}

// searchView is the right pane while the search is open.
func (m Model) searchView(w, h int) string {
	st := m.styles
	s := m.search
	inner := m.entryInner()
	where := "every key"
	if s.prefix != nil {
		where = codec.Format(s.prefix)
	}
	if s.typing && s.prefix != nil {
		where += " (tab: every key)"
	} else if s.typing && s.near != nil {
		where += " (tab: only under the selection)"
	}
	lines := []string{st.PaneTitle.Render("SEARCH VALUES") + st.Muted.Render(" under "+widgets.ClipText(widgets.Sanitize(where), max(inner-22, 8)))}
	if s.typing {
		lines = append(lines, s.input.View())
		if s.inputEr != "" {
			lines = append(lines, widgets.ProseLines("✗ "+s.inputEr, st.Error, inner)...)
		}
		lines = append(lines, "")
		lines = append(lines, widgets.ProseLines(`A jq expression selects the values it yields true (or anything but false and null) for: .plan == "gold", .n > 3, has("holder"). Other text finds the values whose stored JSON text contains it. Only live rows are searched; tab searches every key or only under the selection; enter starts, esc leaves.`, st.Muted, inner)...)
		return widgets.Pane(st.PaneFocused, strings.Join(lines, "\n"), w, h)
	}
	status := fmt.Sprintf("%s · %d match(es) in %d row(s)", s.matcher, len(s.results), s.scanned)
	if s.matcher.Narrows() {
		// The server compared the text: only the matches were read.
		status = fmt.Sprintf("%s · %d match(es), found by the database", s.matcher, len(s.results))
	}
	switch {
	case s.running:
		status += " · searching… (esc stops)"
	case s.err != nil:
		status += " · n resumes after ✗ " + s.err.Error()
	case s.cursor != "":
		status += " · n searches on"
	default:
		status += " · done"
	}
	status += " · s another query"
	lines = append(lines, widgets.ProseLines(widgets.Sanitize(status), st.Muted, inner)...)
	if s.failed > 0 {
		lines = append(lines, widgets.ProseLines(fmt.Sprintf("the expression failed on %d value(s), first %s", s.failed, widgets.Sanitize(s.firstEr)), st.Warn, inner)...)
	}
	rows := max(h-m.styles.Pane.GetVerticalFrameSize()-len(lines), 1)
	off := widgets.ScrollTo(0, s.cur, rows, len(s.results))
	for i := off; i < min(off+rows, len(s.results)); i++ {
		e := s.results[i]
		k := widgets.Line{{Text: "(undecodable)", Style: st.Warn}}
		if e.KeyErr == nil {
			k = widgets.KeySpans(st, e.Key)
		}
		line := append(widgets.Line{{Text: widgets.Gutter(i == s.cur) + " ", Style: st.Accent}}, k...)
		line = append(line, widgets.Span{Text: "  " + widgets.Sanitize(strings.Join(strings.Fields(string(e.Value)), " ")), Style: st.Muted})
		text := widgets.FitWidth(line.Render(i == s.cur), inner)
		if i == s.cur {
			text = st.Selected.Render(text)
		}
		lines = append(lines, text)
	}
	return widgets.Pane(st.PaneFocused, strings.Join(lines, "\n"), w, h)
}
