package compose

import (
	"context"
	"fmt"
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/atomicjson"
	"kvdeck/store"
	"kvdeck/views"
)

// composeCommitted answers composeCommit.
type composeCommitted struct {
	session, gen int
	outcome      composeOutcome
}

// composeCommit commits the composition in one atomic commit.
func composeCommit(src *store.Store, session, gen int, checks []store.Check, muts []store.Mutation, checkOp []int) tea.Cmd {
	return views.StoreCmd(views.WriteTimeout, func(ctx context.Context) tea.Msg {
		res, err := src.Commit(store.WithWriteOp(ctx, "compose: commit"), checks, muts)
		return composeCommitted{session: session, gen: gen, outcome: composeOutcome{res: res, err: err, checks: checks, checkOp: checkOp}}
	})
}

// currentRead answers readCurrent: the physical row at each mutation's
// key now (nil: none), read before the commit is asked for.
type currentRead struct {
	session, gen int
	notes        []string
	rows         []*store.Entry
	err          error
}

// readCurrent reads the row at each key (expired rows included: a delete
// removes them), one short read each.
func readCurrent(src *store.Store, session, gen int, notes []string, keys []codec.Key) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		msg := currentRead{session: session, gen: gen, notes: notes, rows: make([]*store.Entry, len(keys))}
		for i, k := range keys {
			p, err := src.List(ctx, store.ListOptions{Prefix: k, IncludeExpired: true, Limit: 1})
			if err != nil {
				msg.err = err
				return msg
			}
			if len(p.Entries) > 0 && p.Entries[0].Key.Equal(k) {
				e := p.Entries[0]
				msg.rows[i] = &e
			}
		}
		return msg
	})
}

// stampsFor says what a stamps read is for.
type stampsFor int

const (
	stampsForEditor stampsFor = iota // the editor's ctrl+r
	stampsForOps                     // f on a staged check
	stampsForRetry                   // r after a failed commit: refresh, then commit again
)

// stampsRead answers readStamps: for each op, whether its key is live and
// its stamp.
type stampsRead struct {
	session, gen int
	purpose      stampsFor
	ops          []int
	found        []bool
	stamps       []string
	err          error
}

// readStamps reads the stored stamp of each key (live rows only: an
// expired row reads as absent, as a check sees it), one short read each.
func readStamps(src *store.Store, session, gen int, purpose stampsFor, ops []int, keys []codec.Key) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		msg := stampsRead{session: session, gen: gen, purpose: purpose, ops: ops,
			found: make([]bool, len(keys)), stamps: make([]string, len(keys))}
		for i, k := range keys {
			p, err := src.List(ctx, store.ListOptions{Prefix: k, Limit: 1})
			if err != nil {
				msg.err = err
				return msg
			}
			if len(p.Entries) > 0 && p.Entries[0].Key.Equal(k) {
				msg.found[i], msg.stamps[i] = true, p.Entries[0].Versionstamp()
			}
		}
		return msg
	})
}

// compositionFile answers saveComposition and loadComposition.
type compositionFile struct {
	session int
	save    bool
	path    string
	ops     []stagedOp // loaded
	err     error
}

// maxCompositionFile bounds a loaded document, as `kvdeck atomic` does.
const maxCompositionFile = 64 << 20

// saveComposition writes the composition as the atomic JSON to path.
func saveComposition(session int, path string, ops []stagedOp) tea.Cmd {
	checks, muts, _ := commitOf(ops)
	return func() tea.Msg {
		doc, err := atomicjson.Marshal(checks, muts)
		if err == nil {
			err = os.WriteFile(path, doc, 0o644)
		}
		return compositionFile{session: session, save: true, path: path, ops: ops, err: err}
	}
}

// loadComposition reads an atomic JSON document from path.
func loadComposition(session int, path string) tea.Cmd {
	return func() tea.Msg {
		msg := compositionFile{session: session, path: path}
		f, err := os.Open(path)
		if err != nil {
			msg.err = err
			return msg
		}
		defer f.Close()
		raw, err := io.ReadAll(io.LimitReader(f, maxCompositionFile+1))
		switch {
		case err != nil:
			msg.err = err
		case len(raw) > maxCompositionFile:
			msg.err = fmt.Errorf("larger than %d MiB", maxCompositionFile>>20)
		default:
			checks, muts, err := atomicjson.Parse(raw)
			msg.ops, msg.err = opsOf(checks, muts), err
		}
		return msg
	}
}
