package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"kvdeck/internal/journal"
	"kvdeck/store"
	"kvdeck/views"
)

// unsavedDir is where, under the state directory (the journal's,
// $XDG_STATE_HOME/kvdeck), typed text a quit gave up is kept: 0700, each
// file 0600, never removed by kvdeck.
const unsavedDir = "unsaved"

// exitReport keeps or names what the final model still held (quit.go)
// and returns the lines to print once the screen is restored, one per
// thing given up, each ending with how to get it back. getenv finds the
// state directory; pid is this process (the journal actions it wrote).
func (m model) exitReport(getenv func(string) string, pid int) []string {
	held := m.held()
	if len(held) == 0 {
		return nil
	}
	dir, derr := journal.StateDir(getenv)
	if derr == nil {
		dir = filepath.Join(dir, unsavedDir)
	}
	var hist journal.History
	j := journal.Of(m.store)
	var jerr error
	if j != nil {
		hist, _, jerr = j.History()
	}
	cmd := "kvdeck " + m.storeFlag()
	out := make([]string, 0, len(held))
	for _, h := range held {
		line := "kvdeck: " + h.What
		var path string
		if len(h.Keep) > 0 {
			var err error
			if path, err = keepText(dir, derr, h); err != nil {
				// Nowhere to keep it: print it, so that it is not lost.
				out = append(out, fmt.Sprintf("kvdeck: %s: could not keep it in a file (%v); it follows:", h.What, err), string(h.Keep))
				continue
			}
		}
		switch {
		case h.Op != "":
			line += "; " + undoHint(cmd, j, jerr, heldActions(hist, h, pid), path)
		case h.Use != "":
			line += "; kept in " + path + ": " + cmd + " " + strings.ReplaceAll(h.Use, "FILE", views.ShellQuote(path)) + " writes it"
		default:
			line += "; kept in " + path
		}
		out = append(out, line)
	}
	return out
}

// storeFlag names the store the TUI ended on for a command line: its
// saved name, else its URL (which holds no secret).
func (m model) storeFlag() string {
	if m.sw.current.Name != "" {
		return "--store " + views.ShellQuote(m.sw.current.Name)
	}
	return "--db " + views.ShellQuote(m.info.Display)
}

// keepText writes h.Keep to a new 0600 file under dir (made 0700).
func keepText(dir string, derr error, h views.Held) (string, error) {
	if derr != nil {
		return "", derr
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	ext := h.KeepExt
	if ext == "" {
		ext = "json"
	}
	f, err := os.CreateTemp(dir, time.Now().Format("20060102-150405")+"-*."+ext) // 0600
	if err != nil {
		return "", err
	}
	_, err = f.Write(h.Keep)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// heldActions are the journal actions of held writes: started by this
// process under h.Op since h.Since, not undone, with an applied write
// that only deletes (a queue's claims; the decisions written back set
// rows). A take is one action: its undo puts every claimed message back.
func heldActions(hist journal.History, h views.Held, pid int) []string {
	since := h.Since.Truncate(time.Millisecond)
	var ids []string
	for _, a := range hist.Actions {
		if a.Op != h.Op || a.Time.Before(since) || a.UndoneBy != "" {
			continue
		}
		if slices.ContainsFunc(a.Entries, func(e journal.Entry) bool { return e.PID == pid && claims(e) }) {
			ids = append(ids, a.ID)
		}
	}
	return ids
}

// claims reports whether e is an applied write that only deletes.
func claims(e journal.Entry) bool {
	return e.Outcome == store.OutcomeApplied && len(e.Mutations) > 0 &&
		!slices.ContainsFunc(e.Mutations, func(mu store.Mutation) bool { return mu.Type != store.MutationDelete })
}

// undoHint says how held writes are taken back: the undo of their action
// (bodies kept at path, when there).
func undoHint(cmd string, j *journal.Journal, jerr error, ids []string, path string) string {
	kept := ""
	if path != "" {
		kept = "their bodies are kept in " + path + "; "
	}
	switch {
	case j == nil:
		return kept + "the write journal is off, so no undo puts them back"
	case jerr != nil:
		return kept + fmt.Sprintf("the journal could not be read (%v): %s undo --list shows its actions", jerr, cmd)
	case len(ids) == 0:
		return kept + "no claim of them is in the journal: " + cmd + " undo --list shows what was written"
	case len(ids) == 1:
		return kept + cmd + " undo " + ids[0] + " puts them back"
	}
	undos := make([]string, len(ids))
	for i, id := range ids {
		undos[i] = cmd + " undo " + id
	}
	return kept + strings.Join(undos, " && ") + " put them back"
}
