package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"kvdeck/internal/journal"
	"kvdeck/store"
)

// WALCmd switches a rollback-journal file to WAL.
type WALCmd struct {
	Yes bool `name:"yes" help:"Switch without asking (scripts). Without it wal says what changes and asks on a terminal, and refuses when stdin is not one."`
}

// Writes names the write for the read-only refusal (writer).
func (c *WALCmd) Writes() string { return "wal" }

// Help says what the switch costs and changes, and when it refuses.
func (c *WALCmd) Help() string {
	return `On a rollback-journal file (the reference leaves a file it creates so)
every reader holds a lock that fails a writer's commit when the writer
sets no busy timeout, as the reference's service does. In WAL mode
readers and the writer never block each other. The file then has -wal
and -shm files beside it while it is open, and every process that opens
it must run on this host (a network file system breaks WAL's shared
memory). The service's own client opens a WAL file as it is.

The switch takes SQLite's exclusive lock for a moment, which would fail a
commit the service made meanwhile: wal refuses while another process has
the file open (stop the service, switch, start it again), and tries once
without waiting. It is journaled: "kvdeck undo" switches back. A
server's database (sqld, Turso) is the server's to configure.`
}

// walJSON is the result line of wal.
type walJSON struct {
	OK      bool   `json:"ok"`
	Changed bool   `json:"changed"`
	From    string `json:"from"`
	To      string `json:"to"`
	Action  string `json:"action,omitempty"`
}

// Run says what changes, asks, and switches.
func (c *WALCmd) Run(app *App) error {
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MustExist})
	if err != nil {
		return err
	}
	display := s.Info().Display
	if s.JournalMode() == store.JournalWAL {
		app.Out.Result(walJSON{OK: true, From: string(store.JournalWAL), To: string(store.JournalWAL)}, display+" is in WAL mode already: nothing to do")
		return nil
	}
	if err := s.CheckJournalSwitch(); err != nil {
		return walRefused(err)
	}
	if !c.Yes {
		if !app.Out.JSON() {
			walPreview(app, s)
		}
		if !app.terminal(app.Stdin) {
			return errors.New("wal asks before it switches, and stdin is not a terminal: pass --yes to switch " + display + " to WAL")
		}
		if err := askYes(app, "Switch "+display+" to WAL?", "not switched"); err != nil {
			return err
		}
	}
	changed, err := s.SetJournalMode(app.Context(), store.JournalWAL)
	if err != nil {
		return walRefused(err)
	}
	out := walJSON{OK: true, Changed: changed, From: string(store.JournalRollback), To: string(store.JournalWAL)}
	if !changed {
		out.From = out.To
		app.Out.Result(out, display+" is in WAL mode already: nothing to do")
		return nil
	}
	text := "switched " + display + " to WAL (it was in rollback-journal mode)"
	if j := journal.Of(s); j != nil {
		out.Action = lastSwitch(j)
		text += "; this is action " + out.Action + " of the journal: kvdeck undo " + out.Action + " switches it back"
	} else {
		text += "; not journaled (--no-journal): kvdeck undo cannot switch it back"
	}
	app.Out.Result(out, text)
	return nil
}

// walPreview says what the switch changes.
func walPreview(app *App, s *store.Store) {
	base := filepath.Base(s.Info().Display)
	app.Out.Textf("%s: rollback journal → WAL", s.Info().Display)
	app.Out.Textf("  readers and the writer stop blocking each other: a read no longer fails a commit")
	app.Out.Textf("  %s-wal and %s-shm appear beside the file while a connection has it open", base, base)
	app.Out.Textf("  every process that opens the file must run on this host (not over NFS, SMB or another network file system)")
	if !store.SeesOpeners() {
		app.Out.Textf("  kvdeck cannot see here which processes have the file open: stop the service before you switch")
	}
	app.Out.Textf("  kvdeck undo switches back")
}

// walRefused makes a refusal for the file's state (another process has
// it open, or a connection was using it) exit 1: nothing was done, and
// trying later may do it. Anything else stays an error.
func walRefused(err error) error {
	if errors.Is(err, store.ErrLocked) {
		return NotDone("wal refused, nothing was changed: %v", err)
	}
	return fmt.Errorf("wal refused: %w", err)
}

// lastSwitch is the ID of the newest action of j that changed a setting
// (the switch just made), "" when the journal cannot say.
func lastSwitch(j *journal.Journal) string {
	h, _, err := j.History()
	if err != nil {
		return ""
	}
	for i := len(h.Actions) - 1; i >= 0; i-- {
		if len(h.Actions[i].Settings()) > 0 {
			return h.Actions[i].ID
		}
	}
	return ""
}
