package cli

import (
	"context"
	"fmt"
	"strings"

	"kvdeck/store"
)

// IndexCmd manages the opt-in index on kv(ver).
type IndexCmd struct {
	Show IndexShowCmd `cmd:"" default:"1" help:"Say whether kv has an index on ver (the default)."`
	Add  IndexAddCmd  `cmd:"" help:"Create the index kvdeck_kv_ver on kv(ver) (nothing when it exists)."`
	Drop IndexDropCmd `cmd:"" help:"Remove kvdeck_kv_ver (never another index)."`
}

// Help explains what the index is for and what it costs: the reference
// creates none and kvdeck never adds one unasked.
func (c *IndexCmd) Help() string {
	return `The change feed (the Activity tab, kvdeck watch) asks "which rows were
stamped after seq S?". The reference store has no index on ver, so every
time seq moves kvdeck scans the table for the answer: in windows of 5000
rows on a file (each a short read, ~1.5 ms per window), in one request of
up to a million rows to a server (~100 ms of its time per million rows).
On a large store that is written to all the time, the index on ver
makes each answer one indexed read whatever the store's size.

It costs every set one more b-tree write and about 10 bytes a row, and
building it holds the write lock for as long as it takes (about a second
per million rows). The reference's own statements run unchanged beside
it. kvdeck never creates it unless asked here; "kvdeck index drop" undoes
it.`
}

// indexJSON is the line of index show, add and drop.
type indexJSON struct {
	Indexed bool         `json:"indexed"`
	Changed *bool        `json:"changed,omitempty"`
	Indexes []indexEntry `json:"indexes"`
}

type indexEntry struct {
	Name    string `json:"name"`
	Ours    bool   `json:"ours"`
	Partial bool   `json:"partial"`
	SQL     string `json:"sql"`
}

// IndexShowCmd says whether kv has an index on ver.
type IndexShowCmd struct{}

// Run lists the indexes of kv whose first column is ver.
func (c *IndexShowCmd) Run(app *App) error {
	s, err := app.Open(app.Context(), Opening{})
	if err != nil {
		return err
	}
	return printIndexes(app, s, nil, "")
}

// IndexAddCmd creates the index on ver.
type IndexAddCmd struct{}

// Writes names the write for the read-only refusal (writer).
func (c *IndexAddCmd) Writes() string { return "index add" }

// Run creates kvdeck_kv_ver unless it exists.
func (c *IndexAddCmd) Run(app *App) error {
	return changeIndex(app, (*store.Store).AddVerIndex,
		"created the index "+store.VerIndex+" on kv(ver)", "the index "+store.VerIndex+" exists already")
}

// IndexDropCmd removes the index on ver kvdeck created.
type IndexDropCmd struct{}

// Writes names the write for the read-only refusal (writer).
func (c *IndexDropCmd) Writes() string { return "index drop" }

// Run drops kvdeck_kv_ver when it exists.
func (c *IndexDropCmd) Run(app *App) error {
	return changeIndex(app, (*store.Store).DropVerIndex, "dropped the index "+store.VerIndex, "there is no index "+store.VerIndex)
}

// changeIndex makes change on the store of the global flags and prints
// done, or same when there was nothing to change, and the indexes now.
func changeIndex(app *App, change func(*store.Store, context.Context) (bool, error), done, same string) error {
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MustExist})
	if err != nil {
		return err
	}
	changed, err := change(s, app.Context())
	if err != nil {
		return err
	}
	if !changed {
		done = same
	}
	return printIndexes(app, s, &changed, done)
}

// printIndexes prints the result line: what was done, then the indexes
// on ver now.
func printIndexes(app *App, s *store.Store, changed *bool, what string) error {
	ixs, err := s.VerIndexes(app.Context())
	if err != nil {
		return err
	}
	out := indexJSON{Changed: changed, Indexes: []indexEntry{}}
	var lines []string
	if what != "" {
		lines = append(lines, what)
	}
	for _, ix := range ixs {
		out.Indexed = out.Indexed || !ix.Partial
		out.Indexes = append(out.Indexes, indexEntry{Name: ix.Name, Ours: ix.Ours, Partial: ix.Partial, SQL: ix.SQL})
		note := ""
		switch {
		case ix.Partial:
			note = " (partial: the change feed does not use it)"
		case !ix.Ours:
			note = " (not kvdeck's: index drop leaves it)"
		}
		lines = append(lines, fmt.Sprintf("index on ver: %s%s", ix.Name, note))
	}
	if !out.Indexed {
		lines = append(lines, "no index on ver: the change feed scans the table when seq moves (kvdeck index add creates one)")
	}
	app.Out.Result(out, strings.Join(lines, "\n"))
	return nil
}
