package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"kvdeck/codec"
	"kvdeck/internal/dumpfile"
	"kvdeck/store"
)

// maxLoadErrors is how many malformed lines load reports before giving up.
const maxLoadErrors = 10

// The default rows per load commit.
const (
	loadBatchFile   = 500
	loadBatchRemote = 5000
)

// loadBatchBytes ends a batch early over a server once its keys and
// values pass it: a commit is one request, and sqld closes a WebSocket
// whose message is much over 16 MB.
const loadBatchBytes = 8 << 20

// maxCommitRetries bounds the retries of an --if-absent batch that keeps
// losing races against other writers.
const maxCommitRetries = 8

// LoadCmd writes dump lines into the store.
type LoadCmd struct {
	File           string `arg:"" name:"file" help:"Dump lines, or {\"key\",\"value\",\"expiresAt\"?} lines; - for stdin."`
	IfAbsent       bool   `name:"if-absent" help:"Skip keys that already have a live row (each write is checked in its commit)."`
	IncludeExpired bool   `name:"include-expired" help:"Also write rows whose expiresAt has passed; they arrive expired, as in the dump."`
	Batch          *int   `name:"batch" placeholder:"N" help:"Rows per atomic commit (default 500 on a file, 5000 on a server: one request each; over a server a batch also ends at 8 MB of keys and values)."`
}

// loadJSON is load's summary; skipped = expired + existing + undecodable.
type loadJSON struct {
	Loaded      int64 `json:"loaded"`
	Skipped     int64 `json:"skipped"`
	Batches     int   `json:"batches"`
	Expired     int64 `json:"expired"`
	Existing    int64 `json:"existing"`
	Undecodable int64 `json:"undecodable"`
}

// Writes names the write for the read-only refusal (writer).
func (c *LoadCmd) Writes() string { return "load" }

// Run validates the whole input first (nothing is written when a line is
// malformed), then writes it in atomic batches and prints the summary.
func (c *LoadCmd) Run(app *App) error {
	if c.Batch != nil && *c.Batch <= 0 {
		return fmt.Errorf("--batch %d: must be positive", *c.Batch)
	}
	// The input is validated before the store is opened: a malformed
	// input leaves no new empty store behind. Its records are kept
	// parsed (the spill), so that each line is parsed once.
	in, err := OpenInput(c.File, app.Stdin)
	if err != nil {
		return err
	}
	defer in.Close()
	spill, err := newLoadSpill()
	if err != nil {
		return err
	}
	defer spill.remove()
	if err := c.validate(app, in, spill); err != nil {
		return err
	}
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MayCreate})
	if err != nil {
		return err
	}
	size, maxBytes := c.batchSize(s)
	l := &loader{app: app, s: s, cmd: c}
	var batch []loadRecord
	var batchBytes int64
	err = spill.each(func(rec loadRecord) error {
		if rec.undecodable != "" {
			l.res.Undecodable++
			return nil
		}
		batch = append(batch, rec)
		batchBytes += int64(len(rec.enc) + len(rec.value))
		if len(batch) < size && (maxBytes == 0 || batchBytes < maxBytes) {
			return nil
		}
		defer func() { batch, batchBytes = batch[:0], 0 }()
		return l.flush(batch)
	})
	if err == nil {
		err = l.flush(batch)
	}
	l.res.Skipped = l.res.Expired + l.res.Existing + l.res.Undecodable
	app.Out.Result(l.res, loadText(l.res))
	if err != nil {
		return fmt.Errorf("load stopped after %s (%s loaded; every batch is all or nothing): %w",
			plural(int64(l.res.Batches), "batch"), plural(l.res.Loaded, "row"), err)
	}
	return nil
}

// batchSize is how many rows (and, to a server, bytes) a commit of the
// load carries: a commit is one request to a server, so larger batches
// spend fewer round trips; a file keeps its write transactions short.
// --batch sets the rows.
func (c *LoadCmd) batchSize(s *store.Store) (size int, maxBytes int64) {
	size = loadBatchFile
	if s.Info().Transport.Remote() {
		size, maxBytes = loadBatchRemote, loadBatchBytes
	}
	if c.Batch != nil {
		size = *c.Batch
	}
	return size, maxBytes
}

// validate reads every line once, reports the malformed ones and, while
// there is none, spills the records for the writing pass.
func (c *LoadCmd) validate(app *App, in io.Reader, spill *loadSpill) error {
	var errs []string
	err := dumpfile.EachLine(in, func(line []byte, n int) error {
		rec, ok, err := parseLoadLine(line, n)
		switch {
		case err != nil:
			if errs = append(errs, err.Error()); len(errs) == maxLoadErrors {
				return errors.New("too many malformed lines")
			}
			return nil
		case !ok:
			return nil
		case rec.undecodable != "":
			app.Warnf("line %d: skipped, the row does not decode: %s", n, rec.undecodable)
		}
		if len(errs) > 0 {
			return nil // nothing will be written: the spill can stop
		}
		return spill.add(rec)
	})
	if err != nil && len(errs) < maxLoadErrors {
		return fmt.Errorf("read %s: %w", c.File, err)
	}
	if len(errs) > 0 {
		more := ""
		if err != nil {
			more = "\n  (stopped after " + fmt.Sprint(maxLoadErrors) + ")"
		}
		return fmt.Errorf("%s: %s, nothing written:\n  %s%s", c.File, plural(int64(len(errs)), "malformed line"), strings.Join(errs, "\n  "), more)
	}
	return nil
}

// loader writes batches and counts what it did.
type loader struct {
	app *App
	s   *store.Store
	cmd *LoadCmd
	res loadJSON
}

// flush writes one batch as one atomic commit, with the clock pinned so
// that the expiry of every row and the --if-absent reads agree on now.
func (l *loader) flush(batch []loadRecord) error {
	if len(batch) == 0 {
		return nil
	}
	return l.app.Pinned(func(now int64) error {
		rows := make([]loadRecord, 0, len(batch))
		seen := map[string]bool{}
		for _, r := range batch {
			switch {
			case r.expiresAt != nil && *r.expiresAt <= now && !l.cmd.IncludeExpired:
				l.res.Expired++
			case l.cmd.IfAbsent && seen[r.enc]:
				l.res.Existing++ // the first line for a key wins
			default:
				seen[r.enc] = true
				rows = append(rows, r)
			}
		}
		for attempt := 1; len(rows) > 0; attempt++ {
			todo, existing, err := l.absent(rows)
			if err != nil {
				return err
			}
			if len(todo) == 0 {
				l.res.Existing += existing
				return nil
			}
			// Multi-row statements, each under SQLite's limits, in one
			// transaction: any batch size commits (store.SetManyChecked).
			checks, muts := l.commit(todo)
			res, err := l.s.SetManyChecked(l.app.Context(), checks, muts)
			if err != nil {
				return fmt.Errorf("the batch starting at line %d: %w", rows[0].line, err)
			}
			if res.OK {
				l.res.Loaded += int64(len(todo))
				l.res.Existing += existing
				l.res.Batches++
				return nil
			}
			if attempt == maxCommitRetries {
				return fmt.Errorf("the batch starting at line %d lost %d races against other writers; nothing of it was written", rows[0].line, attempt)
			}
		}
		return nil
	})
}

// absent returns the rows to write: all of them, or with --if-absent those
// whose key has no live row, and how many were left out.
func (l *loader) absent(rows []loadRecord) ([]loadRecord, int64, error) {
	if !l.cmd.IfAbsent {
		return rows, 0, nil
	}
	keys := make([]codec.Key, len(rows))
	for i, r := range rows {
		keys[i] = r.key
	}
	found, err := l.s.GetMany(l.app.Context(), keys)
	if err != nil {
		return nil, 0, err
	}
	todo := make([]loadRecord, 0, len(rows))
	for i, r := range rows {
		if found[i] == nil {
			todo = append(todo, r)
		}
	}
	return todo, int64(len(rows) - len(todo)), nil
}

// commit builds the checks (with --if-absent, each key must still be
// absent) and sets of a batch, each with its expiresAt as it is: an
// instant, not a span from now, so no expiry is out of range.
func (l *loader) commit(rows []loadRecord) ([]store.Check, []store.Mutation) {
	var checks []store.Check
	muts := make([]store.Mutation, 0, len(rows))
	for _, r := range rows {
		if l.cmd.IfAbsent {
			checks = append(checks, store.Check{Key: r.key})
		}
		m := store.Mutation{Type: store.MutationSet, Key: r.key, Value: r.value}
		m.ExpiresAt = r.expiresAt
		muts = append(muts, m)
	}
	return checks, muts
}

// loadText is the summary for people.
func loadText(r loadJSON) string {
	text := fmt.Sprintf("loaded %s in %s", plural(r.Loaded, "row"), plural(int64(r.Batches), "batch"))
	if r.Skipped == 0 {
		return text
	}
	var why []string
	for _, c := range []struct {
		n    int64
		what string
	}{{r.Expired, "expired"}, {r.Existing, "existing"}, {r.Undecodable, "undecodable"}} {
		if c.n > 0 {
			why = append(why, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	return fmt.Sprintf("%s; skipped %d (%s)", text, r.Skipped, strings.Join(why, ", "))
}
