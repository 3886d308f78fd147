// Package search is Browse's value search (s): a jq expression or a text
// typed for the prefix selected in the tree (or every key), then its
// matches a page at a time, from which enter shows one in the tree.
package search

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
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Bounds of one search call: the matches a page shows at most, and the
// rows one call examines before it answers (the next call continues from
// where it stopped, so a search of a million rows stays responsive and
// esc stops it between calls or inside one). New gives defaultScan to
// the model (Model.Scan); a test sets its own.
const (
	PageSize    = 200
	defaultScan = 20000
)

// Keys are the keys of the value search's results.
type Keys struct {
	Up, Down key.Binding
	Open     key.Binding // show the match in the tree
	More     key.Binding // search on past the matches shown
	Close    key.Binding // stop the search and close the results
	Again    key.Binding // type another query (the results view)
	Scope    key.Binding // the selected prefix or the whole store (typing)
}

// DefaultKeys returns the value search's default keys.
func DefaultKeys() Keys {
	return Keys{
		Up:    key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:  key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Open:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "show the key in the tree")),
		More:  key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "more matches")),
		Close: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop and close the search")),
		Again: key.NewBinding(key.WithKeys("s", "/"), key.WithHelp("s", "another query")),
		Scope: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "under the prefix / the whole store")),
	}
}

// Model is a value search under a prefix: the expression being typed,
// then its pages of matches.
type Model struct {
	// Wait is each search call's deadline (0: views.ReadTimeout); Scan,
	// the rows one call examines (New: defaultScan).
	Wait time.Duration
	Scan int

	deps    views.Deps
	styles  themes.Styles
	keys    Keys
	input   widgets.InputKeys
	focused bool
	// width, height: the entry pane's rectangle, the search's when open.
	width, height int
	// selected is the prefix selected in the tree (SetSelected): where
	// another query looks.
	selected codec.Key
	tags     int // source of the calls' tags, across searches
	open     bool
	searching
	show codec.Key // the match enter showed, for the parent (TakeShow)
}

// searching is an open search's state, new at each s.
type searching struct {
	in      textinput.Model
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

// New returns a closed search over deps.Store.
func New(deps views.Deps, styles themes.Styles) Model {
	return Model{Scan: defaultScan, deps: deps, styles: styles, keys: DefaultKeys(), input: widgets.DefaultInputKeys(), focused: true}
}

// SetSize sets the entry pane's rectangle, the search's when it is open.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// SetSelected tells the search the prefix selected in the tree (nil: none
// is), where another query (s in the results) looks.
func (m *Model) SetSelected(prefix codec.Key) { m.selected = prefix }

// Focus gives the search the keys.
func (m *Model) Focus() { m.focused = true }

// Blur takes the keys away; a blurred search ignores keys.
func (m *Model) Blur() { m.focused = false }

// Open reports whether a search is open, shown or parked.
func (m Model) Open() bool { return m.open }

// Active reports whether the search is shown (open, not parked).
func (m Model) Active() bool { return m.open && !m.parked }

// Results are the matches found so far.
func (m Model) Results() []store.Entry { return m.results }

// Index is the match under the cursor.
func (m Model) Index() int { return m.cur }

// Scanned is how many rows the search examined.
func (m Model) Scanned() int { return m.scanned }

// More reports whether the search can go on past the matches found (n).
func (m Model) More() bool { return m.cursor != "" }

// Err is why the last call failed (n resumes after it), nil when it did
// not.
func (m Model) Err() error { return m.err }

// TakeShow returns the key of the match enter showed, for the parent to
// go to in the tree, and forgets it; nil when there is none.
func (m *Model) TakeShow() codec.Key {
	k := m.show
	m.show = nil
	return k
}

// searched answers searchValues.
type searched struct {
	session, gen int
	page         valuefilter.SearchPage
	err          error
}

// searchValues examines the live rows under opts.Prefix from opts.Cursor
// and answers the next matches (at most PageSize, after at most scan
// rows); ctx is the search's own, cancelled by esc. Each call reads its
// rows in one streamed request over HTTP (pages elsewhere), under its own
// deadline, wait (one deadline over the whole search ran out after 15k
// rows over a 300 ms link, when a call was 40 page requests); a call that
// fails answers the matches found before it and the cursor to resume at.
func searchValues(ctx context.Context, src *store.Store, session, gen int, opts store.ListOptions, m *valuefilter.Matcher, scan int, wait time.Duration) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		p, err := valuefilter.Search(ctx, src, opts, m, PageSize, scan)
		return searched{session: session, gen: gen, page: p, err: err}
	}
}

// Start opens the search input for near, the selected node's prefix (nil:
// the whole store; tab switches). After enter showed a match in the tree,
// s comes back to the query and its results.
func (m *Model) Start(near codec.Key) tea.Cmd {
	if m.open && m.parked {
		m.parked = false
		return nil
	}
	m.open = true
	m.searching = searching{typing: true, prefix: near, near: near}
	m.in = widgets.NewInput("search ", `.plan == "gold"  (jq; a leading "." or jq:)  or text to find`, m.styles)
	m.in.Width = m.inner() - 8
	return m.in.Focus()
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

// run starts the next call of the search from its cursor.
func (m *Model) run() tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel, m.running = cancel, true
	m.tags++
	m.gen = m.tags
	wait := m.Wait
	if wait <= 0 {
		wait = views.ReadTimeout
	}
	return searchValues(ctx, m.deps.Store, m.deps.Session, m.gen, store.ListOptions{Prefix: m.prefix, Cursor: m.cursor}, m.matcher, m.Scan, wait)
}

// stop cancels a call in flight and closes the search.
func (m *Model) stop() {
	if m.cancel != nil {
		m.cancel()
	}
	m.open = false
}

// Update handles the keys while the search is shown, and its calls'
// answers; it ignores every other message.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch {
		case !m.focused || !m.Active():
		case m.typing:
			return m.handleTyping(msg)
		default:
			return m.handleResults(msg)
		}
	case searched:
		return m.onSearched(msg)
	}
	return m, nil
}

// handleResults handles the keys of the results.
func (m Model) handleResults(msg tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.keys.Close):
		m.stop()
	case key.Matches(msg, m.keys.Up):
		m.cur = max(m.cur-1, 0)
	case key.Matches(msg, m.keys.Down):
		m.cur = min(m.cur+1, max(len(m.results)-1, 0))
	case key.Matches(msg, m.keys.More):
		// After an error the search resumes from the row it stopped at
		// (its cursor is "" only if it stopped before the first row).
		if !m.running && (m.cursor != "" || m.err != nil) {
			m.err = nil
			return m, m.run()
		}
	case key.Matches(msg, m.keys.Again):
		// The new query looks under what is selected now (tab: every key).
		m.near = m.selected
		if m.prefix != nil || m.near == nil {
			m.prefix = m.near
		}
		m.typing = true
		m.in.CursorEnd()
		return m, m.in.Focus()
	case key.Matches(msg, m.keys.Open) && m.cur < len(m.results):
		e := m.results[m.cur]
		if e.KeyErr != nil {
			return m, views.Flash(views.FlashInfo, "this row's key does not decode: it is under (undecodable)")
		}
		// The search stays, parked: s comes back to it.
		m.parked, m.show = true, e.Key
		return m, views.Flash(views.FlashInfo, "s returns to the search results")
	}
	return m, nil
}

// handleTyping handles the keys while the query is typed.
func (m Model) handleTyping(msg tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.input.Cancel):
		m.stop()
		return m, nil
	case key.Matches(msg, m.input.Accept):
		matcher, err := parseSearch(m.in.Value())
		if err != nil {
			m.inputEr = err.Error()
			return m, nil
		}
		if m.cancel != nil {
			m.cancel() // the previous query's call, if one runs
		}
		m.matcher, m.typing, m.inputEr = matcher, false, ""
		m.results, m.cur, m.cursor, m.scanned, m.failed, m.firstEr, m.err = nil, 0, "", 0, 0, "", nil
		m.in.Blur()
		return m, m.run()
	case key.Matches(msg, m.keys.Scope):
		if m.prefix != nil {
			m.prefix = nil
		} else {
			m.prefix = m.near
		}
		return m, nil
	}
	var cmd tea.Cmd
	m.in, cmd = m.in.Update(msg)
	return m, cmd
}

// onSearched takes a call's matches; a call that stopped at its scan
// bound with no match yet goes on by itself (esc stops it).
func (m Model) onSearched(msg searched) (Model, tea.Cmd) {
	if !m.open || msg.session != m.deps.Session || msg.gen != m.gen {
		return m, nil
	}
	m.running = false
	p := msg.page
	m.results = append(m.results, p.Entries...)
	m.scanned += p.Scanned
	m.failed += p.Failed
	if p.FirstFailure != nil && m.firstEr == "" {
		m.firstEr = fmt.Sprintf("%s: %v", codec.Format(p.FirstFailure.Entry.Key), p.FirstFailure.Err)
	}
	m.cursor, m.err = p.Cursor, msg.err
	if msg.err == nil && m.cursor != "" && len(p.Entries) == 0 {
		return m, m.run()
	}
	return m, nil
}

// ShortHelp returns the main keys of the query or the results.
func (m Model) ShortHelp() []key.Binding {
	if m.typing {
		return []key.Binding{m.input.Accept, m.keys.Scope, m.input.Cancel}
	}
	k := m.keys
	return []key.Binding{k.Open, k.More, k.Again, k.Close}
}

// FullHelp returns every key of the query or the results.
func (m Model) FullHelp() [][]key.Binding {
	if m.typing {
		return [][]key.Binding{m.ShortHelp()}
	}
	k := m.keys
	return [][]key.Binding{{k.Up, k.Down, k.Open, k.More, k.Again, k.Close}}
}
