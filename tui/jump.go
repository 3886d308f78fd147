package tui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/views"
)

// A jump between tabs is asked for by a key (o on a lease, alarm or
// message row, o on a dwk_* key in Browse, enter in Activity) whose view
// answers with a command; the tab switches only when that command's
// message (views.GotoMsg, views.ShowRecordMsg) comes back. A key pressed
// in between, or in the same read of the terminal, would act on the tab
// being left (d deleting there), so the root holds the keys meanwhile and
// replays them on the tab the jump lands on. Browse holds them further
// while its own jump walks to the key; a coordination tab gets them once
// it has loaded the rows its record is among. A jump that does not happen
// drops them and its flash says how many. ctrl+c and q act at once.

// jumpWait is a jump asked for and not landed yet: an overlay
// (overlay.go) that draws nothing and holds every key but q.
type jumpWait struct {
	bare
	gen     int          // tags the answers of the jump key's commands
	pending int          // those commands not answered yet
	landed  bool         // the jump's message switched the tab
	to      tab          // the tab it switched to, once landed
	held    []tea.KeyMsg // keys pressed meanwhile, for the target
	flash   *views.FlashMsg
}

func (*jumpWait) layer() layer { return layerJump }

// key holds msg for the jump's target; q goes on (it quits).
func (j *jumpWait) key(m model, msg tea.KeyMsg) (model, tea.Cmd, bool) {
	if key.Matches(msg, m.keys.Quit) {
		return m, nil, false
	}
	j.hold(msg)
	return m, nil, true
}

func (j *jumpWait) generation() int { return j.gen }

func (*jumpWait) answer(m model, msg tea.Msg) (model, tea.Cmd) {
	return answerWith(m, msg, model.onJumpAnswer)
}

// jump is the jump in flight, nil when none is.
func (m model) jump() *jumpWait { return opened[*jumpWait](m.overlays) }

// maxHeld bounds the keys held during a jump (Browse's bound too).
const maxHeld = 32

// jumpAnswer is what a command of the jump key answered, tagged with the
// jump's generation.
type jumpAnswer struct {
	gen int
	msg tea.Msg
}

func (a jumpAnswer) overlayGen() int { return a.gen }

// orphaned: the jump ended already, so its answer is an ordinary message.
func (a jumpAnswer) orphaned(m model) (model, tea.Cmd) { return m.untracked(a.msg) }

// track tags cmd's answer with gen.
func track(gen int, cmd tea.Cmd) tea.Cmd {
	return func() tea.Msg { return jumpAnswer{gen: gen, msg: cmd()} }
}

// awaitJump starts holding keys until cmd, what the focused view answered
// a jump key with, has switched the tab (or has answered without).
func (m *model) awaitJump(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	j := &jumpWait{gen: m.overlays.newGen(), pending: 1}
	m.overlays.put(j)
	return track(j.gen, cmd)
}

// hold keeps a key pressed while the jump is in flight.
func (j *jumpWait) hold(msg tea.KeyMsg) {
	if len(j.held) < maxHeld {
		j.held = append(j.held, msg)
	}
}

// onJumpAnswer takes an answer of the jump key's commands: a batch is
// tracked further, the jump's message switches the tab, anything else
// goes where it would have gone untracked.
func (m model) onJumpAnswer(a jumpAnswer) (model, tea.Cmd) {
	j := m.jump()
	if j.landed {
		// The jump ended already: an ordinary message now.
		return m.untracked(a.msg)
	}
	j.pending--
	switch msg := a.msg.(type) {
	case tea.BatchMsg:
		cmds := make([]tea.Cmd, 0, len(msg))
		for _, c := range msg {
			if c != nil {
				j.pending++
				cmds = append(cmds, track(j.gen, c))
			}
		}
		if j.pending == 0 {
			out := m.failJump()
			return m, out
		}
		return m, tea.Batch(cmds...)
	case views.GotoMsg:
		j.landed, j.to = true, tabBrowse
		return m.update(msg)
	case views.ShowRecordMsg:
		t, ok := recordTab(msg.Key)
		if !ok {
			f := notRecord(msg.Key)
			j.flash = &f
			out := m.failJump()
			return m, out
		}
		j.landed, j.to = true, t
		return m.update(msg)
	case views.FlashMsg:
		// The view said why it does not jump (when nothing else of the
		// key is pending): that flash says the keys are dropped too.
		j.flash = &msg
		if j.pending == 0 {
			out := m.failJump()
			return m, out
		}
		return m.update(msg)
	}
	next, cmd := m.untracked(a.msg)
	if j.pending > 0 {
		return next, cmd
	}
	fail := next.failJump()
	return next, tea.Batch(cmd, fail)
}

// untracked handles msg as if it had come untagged: a batch's commands
// run; a message bubbletea itself acts on (quit, exec, ...) goes back to
// it.
func (m model) untracked(msg tea.Msg) (model, tea.Cmd) {
	switch msg := msg.(type) {
	case nil:
		return m, nil
	case tea.BatchMsg:
		return m, tea.Batch(msg...)
	case views.GotoMsg, views.ShowRecordMsg, views.FlashMsg, views.ConfirmMsg, views.ComposeMsg:
		return m.update(msg)
	}
	return m, func() tea.Msg { return msg }
}

// failJump ends a jump that did not happen: the keys held for its target
// are dropped, and the flash (the view's reason, if it gave one) says how
// many.
func (m *model) failJump() tea.Cmd {
	j := m.jump()
	m.overlays.drop(layerJump)
	n := len(j.held)
	if j.flash == nil && n == 0 {
		return nil
	}
	f := views.FlashMsg{Level: views.FlashInfo, Text: "no tab was shown"}
	if j.flash != nil {
		f = *j.flash
	}
	if n > 0 {
		f.Text += fmt.Sprintf(" (%d key(s) pressed meanwhile ignored)", n)
	}
	return m.flash.show(f)
}

// settleJump replays the held keys once the jump has landed: at once on
// Browse (which holds them while its own jump walks to the key), on a
// coordination tab once its load is in (the record selected).
func (m model) settleJump(cmd tea.Cmd) (model, tea.Cmd) {
	j := m.jump()
	if j == nil || !j.landed {
		return m, cmd
	}
	if m.tab == j.to && j.to != tabBrowse && m.tabs.view(j.to).Busy() {
		return m, cmd
	}
	m.overlays.drop(layerJump)
	cmds := []tea.Cmd{cmd}
	next := m
	for _, k := range j.held {
		// A held key that asks for another jump holds the ones after it.
		var c tea.Cmd
		next, c = next.handleKey(k)
		cmds = append(cmds, c)
	}
	return next, tea.Batch(cmds...)
}

// notRecord says that k has no coordination tab.
func notRecord(k codec.Key) views.FlashMsg {
	return views.FlashMsg{Level: views.FlashInfo, Text: codec.Format(k) + " is not a lease, cron, alarm or queue row"}
}
