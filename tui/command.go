package tui

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
	"kvdeck/internal/tuiconfig"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// openTimeout bounds :open (connecting and checking the schema).
const openTimeout = 15 * time.Second

// command is a parsed command line.
type command struct {
	verb     string // open, goto, refresh, clock, quit
	url      string
	askToken bool // open: ask for an auth token (never typed on the line)
	key      codec.Key
	text     string        // find: the text (empty: the finder opens empty)
	interval time.Duration // refresh; 0 = off
	clock    clockChange
}

// clockChange is what :clock does to the virtual clock.
type clockChange struct {
	reset   bool          // now: back to the real clock
	advance time.Duration // +5m / -1h: move the virtual time
	fix     int64         // an instant (epoch ms), when not zero
}

const commandUsage = "commands: :open URL [--auth-token] · :store [NAME] · :at TIME|now · :fleet · :goto KEY · :find TEXT · :refresh 500ms|off · :clock +5m|-1h|now|EPOCH_MS|RFC3339 · :log · :q"

const openUsage = "usage: :open URL [--auth-token] (a file path, file:, libsql://, http(s)://, ws(s)://; --auth-token asks for a token at a prompt that does not echo it)"

// parseCommand reads a command line (without the colon).
func parseCommand(line string) (command, error) {
	verb, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	arg = strings.TrimSpace(arg)
	c := command{verb: verb}
	switch verb {
	case "open", "o":
		c.verb = "open"
		for _, f := range strings.Fields(arg) {
			switch {
			case f == "--auth-token":
				c.askToken = true
			case strings.HasPrefix(f, "--auth-token="):
				// Never echo it: it is on the screen already, once.
				return c, errors.New("a token typed on the command line shows on the screen; type :open URL --auth-token and give it at the prompt")
			case strings.HasPrefix(f, "--"):
				return c, errors.New(openUsage)
			case c.url != "":
				return c, errors.New(openUsage)
			default:
				c.url = f
			}
		}
		if c.url == "" {
			return c, errors.New(openUsage)
		}
	case "goto", "g":
		c.verb = "goto"
		k, err := widgets.ParseKey(arg)
		if err != nil {
			return c, fmt.Errorf(":goto %s: %w", arg, err)
		}
		c.key = k
	case "find", "f":
		c.verb, c.text = "find", arg
	case "refresh":
		if arg == "off" {
			return c, nil
		}
		d, err := usertext.ParseDurationAtLeast(arg, 100*time.Millisecond)
		if err != nil {
			return c, fmt.Errorf("usage: :refresh DURATION (at least 100ms, e.g. 500ms, 2s) or :refresh off")
		}
		c.interval = d
	case "clock":
		cc, err := parseClock(arg)
		if err != nil {
			return c, err
		}
		c.clock = cc
	case "at":
		c.text = arg // TIME, now, or "" (the points)
	case "store", "fleet":
		c.url = arg // the saved store's name; "" opens the picker (:fleet has none)
	case "q", "quit":
		c.verb = "quit"
	case "log", "messages":
		c.verb = "log"
	default:
		return c, fmt.Errorf("unknown command %q; %s", verb, commandUsage)
	}
	return c, nil
}

// parseClock reads :clock's argument (usertext.ParseTimeSpec): now, a
// signed duration to move by, or an instant after the epoch (epoch
// milliseconds or an RFC 3339 time) to stop at.
func parseClock(arg string) (clockChange, error) {
	spec, err := usertext.ParseTimeSpec(arg)
	switch {
	case err != nil && (strings.HasPrefix(arg, "+") || strings.HasPrefix(arg, "-")):
		return clockChange{}, fmt.Errorf(":clock %s: not a duration (try +5m or -1h30m)", arg)
	case err != nil || !spec.Now && !spec.Relative && spec.At <= 0:
		return clockChange{}, fmt.Errorf("usage: :clock +5m|-1h|now|EPOCH_MS|RFC3339 (got %q)", arg)
	case spec.Now:
		return clockChange{reset: true}, nil
	case spec.Relative:
		return clockChange{advance: spec.Offset}, nil
	}
	return clockChange{fix: spec.At}, nil
}

// apply changes the virtual clock.
func (c clockChange) apply(clock *store.VirtualClock) {
	switch {
	case c.reset:
		clock.Reset()
	case c.fix != 0:
		clock.Fix(c.fix)
	default:
		clock.Advance(c.advance)
	}
}

// commandLine is the command line (:) on the message line, or the
// prompt for an auth token (:open URL --auth-token) in its place.
type commandLine struct {
	bare
	input textinput.Model
	// askingFor is the URL whose token the prompt asks for ("" on the
	// command line).
	askingFor string
}

func (*commandLine) layer() layer { return layerCommand }

func (*commandLine) key(m model, msg tea.KeyMsg) (model, tea.Cmd, bool) {
	return taken(m.handleCommandLine(msg))
}

func (c *commandLine) line(m model) (string, bool) {
	in := c.input
	in.Width = m.width - 3
	return fit(in.View(), m.width), true
}

// commandPlaceholder is what the empty command line shows.
const commandPlaceholder = `open URL · goto ["users", 42] · refresh 500ms|off · clock +5m|now`

// openCommandLine opens an empty command line.
func (m *model) openCommandLine() tea.Cmd {
	c := &commandLine{input: widgets.NewInput(":", commandPlaceholder, m.styles)}
	m.overlays.put(c)
	return c.input.Focus()
}

// cmdline is the command line open, nil when none is.
func (m model) cmdline() *commandLine { return opened[*commandLine](m.overlays) }

// handleCommandLine handles keys while the command line is open: enter
// runs the command (or opens with the token given), esc closes it; what
// was typed goes with it.
func (m model) handleCommandLine(msg tea.KeyMsg) (model, tea.Cmd) {
	c := *m.cmdline()
	switch {
	case key.Matches(msg, m.input.Cancel):
		m.overlays.drop(layerCommand)
		return m, nil
	case key.Matches(msg, m.input.Accept) && c.askingFor != "":
		m.overlays.drop(layerCommand)
		return m.open(c.askingFor, c.input.Value(), true)
	case key.Matches(msg, m.input.Accept):
		m.overlays.drop(layerCommand)
		cmd, err := parseCommand(c.input.Value())
		if err != nil {
			out := m.flash.show(views.FlashMsg{Level: views.FlashError, Text: err.Error()})
			return m, out
		}
		return m.run(cmd)
	}
	var cmd tea.Cmd
	c.input.Width = m.width - 3
	c.input, cmd = c.input.Update(msg)
	m.overlays.put(&c)
	return m, cmd
}

// run carries out a parsed command.
func (m model) run(c command) (model, tea.Cmd) {
	var cmd tea.Cmd
	switch c.verb {
	case "quit":
		cmd = m.quit()
		return m, cmd
	case "log":
		m.openLog()
		return m, nil
	case "open":
		if c.askToken {
			if m.cfg.OpenWithToken == nil {
				return m, views.Flash(views.FlashError, ":open --auth-token is not available here")
			}
			return m, m.askToken(c.url)
		}
		return m.open(c.url, "", false)
	case "store":
		if c.url == "" {
			return m.openPicker()
		}
		return m.switchStore(c.url)
	case "fleet":
		return m.openFleet()
	case "at":
		return m.at(c.text)
	case "goto":
		return m.gotoKey(c.key)
	case "find":
		return m.openFinder(c.text)
	case "refresh":
		cmd = m.setInterval(c.interval)
		out := tea.Batch(cmd, views.Flash(views.FlashInfo, "live refresh: %s", m.refreshText()))
		return m, out
	case "clock":
		c.clock.apply(m.cfg.Clock)
		desc := m.cfg.Clock.Describe()
		if desc == "" {
			desc = "the real clock"
		}
		// Liveness depends on the clock: what is shown may have expired.
		out := tea.Batch(m.tabs.refresh(m.tab), views.Flash(views.FlashInfo, "clock: %s", desc))
		return m, out
	}
	return m, nil
}

// askToken opens the command line as a prompt for the auth token of
// url: what is typed shows as asterisks and never enters the command
// history, a flash or the model beyond the prompt itself, which goes
// when it closes.
func (m *model) askToken(url string) tea.Cmd {
	in := widgets.NewInput("auth token for "+store.RedactURL(url)+": ", commandPlaceholder, m.styles)
	in.EchoMode = textinput.EchoPassword
	c := &commandLine{input: in, askingFor: url}
	m.overlays.put(c)
	return c.input.Focus()
}

// open starts opening url: with the token given (withToken, :open URL
// --auth-token), or with the one bound to url's server, if any.
func (m model) open(url, token string, withToken bool) (model, tea.Cmd) {
	if m.cfg.Open == nil {
		return m, views.Flash(views.FlashError, ":open is not available here")
	}
	open := func(ctx context.Context) (*store.Store, error) { return m.cfg.Open(ctx, url) }
	if withToken {
		openWith := m.cfg.OpenWithToken
		open = func(ctx context.Context) (*store.Store, error) { return openWith(ctx, url, token) }
	}
	// The "opening" note is shown now, not by a command: a command
	// could land after a fast failure and hide its error.
	note := m.flash.show(views.FlashMsg{Level: views.FlashInfo, Text: fmt.Sprintf("opening %s…", store.RedactURL(url))})
	return m, tea.Batch(openStore(open, url), note)
}

// storeOpened answers openStore.
type storeOpened struct {
	url string
	s   *store.Store
	err error
}

// openStore opens another database (open carries the URL and options).
func openStore(open func(context.Context) (*store.Store, error), url string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
		defer cancel()
		s, err := open(ctx)
		return storeOpened{url: url, s: s, err: err}
	}
}

// closeStore closes a store the root opened and no longer shows.
func closeStore(s *store.Store) tea.Cmd {
	return func() tea.Msg {
		_ = s.Close()
		return nil
	}
}

// onOpened switches every view to the new store under a new session, so
// that answers still in flight from the old one are dropped.
func (m model) onOpened(msg storeOpened) (model, tea.Cmd) {
	if msg.err != nil {
		out := m.flash.show(views.FlashMsg{Level: views.FlashError, Text: fmt.Sprintf("cannot open %s: %v", store.RedactURL(msg.url), msg.err)})
		return m, out
	}
	closeOld := m.leavePast() // a past shown goes, the live store with it if the root opened it
	if m.owned {
		closeOld = tea.Batch(closeOld, closeStore(m.store))
	}
	m.store, m.owned = msg.s, true
	m.sw.current = tuiconfig.SavedStore{} // a URL; a saved store's switch sets it back
	m.tm.machine, m.tm.other = nil, true  // the time machine reads the first store
	cmd := tea.Batch(closeOld, m.showStore(),
		m.flash.show(views.FlashMsg{Level: views.FlashOK, Text: "opened " + msg.s.Info().Display}))
	return m, cmd
}

// showStore shows m.store in every view under a new session, so that
// answers still in flight from the store shown before are dropped.
func (m *model) showStore() tea.Cmd {
	m.info = m.store.Info()
	m.session++
	m.overlays.drop(layerUndo)
	m.overlays.drop(layerFinder)
	m.overlays.drop(layerKeyHistory)
	m.overlays.drop(layerPoints)
	m.hist, m.browseAt = history{}, nil // places of the other store
	m.keys.Undo.SetEnabled(m.undoKeyOn())
	m.tabs = newTabs(m.deps(), m.styles)
	m.focusTab()
	m.setSize(m.width, m.height)
	m.refresh.known, m.refresh.reading = false, false
	m.rate.reset()
	m.refresh.gen++
	m.lastErr = ""
	return tea.Batch(m.tabs.init(m.tab), m.rearm())
}
