package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/usertext"
	"kvdeck/views"
)

// flashState is the flash line: the outcome of the last action, cleared
// by a tick tagged with the message's generation, so that a newer flash
// is not cleared by an older one's timer.
type flashState struct {
	msg views.FlashMsg
	on  bool
	gen int
	// log keeps the last maxLog messages in full, oldest first, with the
	// wall time they came (:log shows them: the flash line and the status
	// bar cut long text and forget it).
	log []logEntry
}

// logEntry is one message of the log.
type logEntry struct {
	at  time.Time
	msg views.FlashMsg
}

// maxLog bounds the message log.
const maxLog = 200

// record adds msg to the log, its text made safe for the terminal (the
// usertext rule; line feeds kept: the log shows messages in full).
func (f *flashState) record(msg views.FlashMsg) {
	msg.Text = usertext.SanitizeLines(msg.Text)
	if len(f.log) == maxLog {
		f.log = append(f.log[:0], f.log[1:]...)
	}
	f.log = append(f.log, logEntry{at: time.Now(), msg: msg})
}

// flashExpired clears the flash of generation gen.
type flashExpired struct{ gen int }

// show puts msg on the line and arms its clearing tick: errors stay
// longer, they need reading.
func (f *flashState) show(msg views.FlashMsg) tea.Cmd {
	f.gen++
	f.msg, f.on = msg, true
	f.record(msg)
	d := 4 * time.Second
	if msg.Level == views.FlashError {
		d = 8 * time.Second
	}
	gen := f.gen
	return tea.Tick(d, func(time.Time) tea.Msg { return flashExpired{gen: gen} })
}

// expire clears the line if msg is for the flash showing.
func (f *flashState) expire(msg flashExpired) {
	if msg.gen == f.gen {
		f.on = false
	}
}
