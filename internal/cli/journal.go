package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/alecthomas/kong"

	"kvdeck/internal/journal"
	"kvdeck/store"
)

// The write journal (internal/journal) records every write a command or
// the TUI makes through a store the App opened to write: Open attaches
// it, so no command can forget it, and Main names each write after the
// command (store.WithWriteOp). Read-only stores, --no-journal and
// KVDECK_JOURNAL=off journal nothing; `kvdeck race` workers and `kvdeck
// demo`'s replicas own their stores (Opening.Own) and the demo's seed
// goes without its recorder: workloads are not journaled either.

// JournalOff reports whether writes go unjournaled: --no-journal, or
// KVDECK_JOURNAL=off (any case).
func (a *App) JournalOff() bool {
	return a.Globals.NoJournal || strings.EqualFold(strings.TrimSpace(a.Env["KVDECK_JOURNAL"]), "off")
}

// JournalFor opens the journal of the store at url, in the state
// directory of the command's environment ($XDG_STATE_HOME/kvdeck, else
// $HOME/.local/state/kvdeck). Nothing is created until a write is
// recorded.
func (a *App) JournalFor(url string) (*journal.Journal, error) {
	dir, err := journal.StateDir(func(k string) string { return a.Env[k] })
	if err != nil {
		return nil, fmt.Errorf("the write journal: %w", err)
	}
	return journal.Open(url, journal.Options{Dir: dir})
}

// attachJournal makes s record its writes in its journal, unless the
// journal is off. A journal that cannot be opened (no HOME) is attached
// as a recorder that refuses every write with the reason: a write is
// never made unjournaled unless the user said so.
func (a *App) attachJournal(s *store.Store, url string) {
	if a.JournalOff() {
		return
	}
	var rec store.Recorder
	j, err := a.JournalFor(url)
	if err != nil {
		rec = refusingRecorder{err: err}
	} else {
		rec = j
	}
	if a.wrapRecorder != nil {
		rec = a.wrapRecorder(rec)
	}
	s.SetRecorder(rec)
}

// refusingRecorder refuses every write: the journal could not be opened.
type refusingRecorder struct{ err error }

func (r refusingRecorder) Before(context.Context, store.PendingWrite) (string, error) {
	return "", r.err
}

func (refusingRecorder) After(context.Context, string, store.WriteResult) {}

// journalHint is added to the message of a write the journal refused.
const journalHint = "nothing was written; --no-journal (or KVDECK_JOURNAL=off) writes without the journal, and without undo"

// commandOp names the writes of the selected command for the journal:
// its command path, e.g. "set", "lease break", "queue purge".
func commandOp(kctx *kong.Context) string {
	var parts []string
	for n := kctx.Selected(); n != nil && n.Parent != nil; n = n.Parent {
		if n.Type == kong.CommandNode {
			parts = append([]string{n.Name}, parts...)
		}
	}
	return strings.Join(parts, " ")
}

// openWorkload is openScoped without the journal: the connections of a
// workload the TUI runs (the Race tab's workers), as kvdeck race's.
func (a *App) openWorkload(ctx context.Context, url string) (*store.Store, error) {
	s, err := a.openScoped(ctx, url)
	if err == nil {
		s.SetRecorder(nil)
	}
	return s, err
}
