package cli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"kvdeck/codec"
	"kvdeck/internal/storeconfig"
	"kvdeck/store"
)

// CopyCmd copies the live rows under a prefix from one store to another
// as checked commits.
type CopyCmd struct {
	From      string `name:"from" required:"" placeholder:"STORE|URL" predictor:"store" help:"The store to read: a saved store's name or a database URL."`
	To        string `name:"to" required:"" placeholder:"STORE|URL" predictor:"store" help:"The store to write: a saved store's name or a database URL."`
	Prefix    string `arg:"" name:"prefix" help:"Key prefix (key text, e.g. '[\"users\"]'); '[]' copies every live row."`
	Overwrite bool   `name:"overwrite" help:"Also write the keys that hold a different value (or expiry) in the target; each is checked against the stamp read there, so a key changed meanwhile is not overwritten."`
	DryRun    bool   `name:"dry-run" help:"Show what would be written and skipped; write nothing."`
	FromTok   string `name:"from-auth-token" placeholder:"TOKEN" env:"KVDECK_COPY_FROM_AUTH_TOKEN" help:"Auth token for --from's server only. Never printed."`
	ToTok     string `name:"to-auth-token" placeholder:"TOKEN" env:"KVDECK_COPY_TO_AUTH_TOKEN" help:"Auth token for --to's server only. Never printed."`
}

// copyBatch is how many keys one commit of copy carries: read in the
// target with one GetMany, written with one SetManyChecked.
const copyBatch = 500

// copyAttempts is how often a batch is planned again when a key of the
// target changed between the read and the commit.
const copyAttempts = 3

// copyRow is one key's line: action is create, overwrite, skip (differs
// in the target, no --overwrite), unchanged (same value and expiry, not
// written), or invalid (the source row cannot be copied).
type copyRow struct {
	Key    codec.Key `json:"key"`
	Action string    `json:"action"`
	// Target is the target's stamp when the key is there.
	Target string `json:"target,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// copySummary ends the output.
type copySummary struct {
	Summary     bool   `json:"summary"`
	DryRun      bool   `json:"dryRun"`
	Created     int    `json:"created"`
	Overwritten int    `json:"overwritten"`
	Unchanged   int    `json:"unchanged"`
	Skipped     int    `json:"skipped"`
	Invalid     int    `json:"invalid"`
	Commits     int    `json:"commits"`
	Stamp       string `json:"versionstamp,omitempty"` // the last commit's
}

// storeName is what a saved store's name looks like (storeconfig's rule);
// anything else is taken for a URL.
var storeName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// copySide resolves --from or --to: a saved store (its URL, its own
// token, its read-only setting) or a URL, with own (the side's
// --from-auth-token or --to-auth-token) as its token when given; else a
// saved store's own token, and for a URL the global token only when the
// URL is on --db's server (globalTokenFor). A name-like value that is no
// saved store is refused with the names that exist, so that a typo never
// creates a database file of that name.
func copySide(app *App, flag, v, own string) (url, token string, readOnly bool, name string, err error) {
	url = v
	var s storeconfig.Store
	var cfg *storeconfig.Config
	if storeName.MatchString(v) {
		if cfg, err = loadConfig(app); err != nil {
			return "", "", false, "", fmt.Errorf("--%s %s: %w", flag, v, err)
		}
		if s, err = cfg.Get(v); err != nil {
			return "", "", false, "", fmt.Errorf("--%s: %w (a URL names a file as file:%s)", flag, err, v)
		}
		url, readOnly, name = savedURL(s), s.IsReadOnly(), s.Name
	}
	switch {
	case own != "":
		if serverOf(url) == "" {
			return "", "", false, "", fmt.Errorf("%w: --%s-auth-token is for a server, and --%s %s is not one", store.ErrBadURL, flag, flag, shown(v))
		}
		token = own
	case cfg != nil:
		if token, err = cfg.TokenFor(app.Context(), s, app.Env, flag == "to"); err != nil {
			return "", "", false, "", fmt.Errorf("--%s %s: %w", flag, v, err)
		}
		app.redactToo(token)
	default:
		token = app.globalTokenFor(url)
	}
	return url, token, readOnly, name, nil
}

// Run plans and writes batch by batch: the source's live rows under the
// prefix are read in key order, their keys looked up in the target, and
// what must change is written as one commit per batch whose checks say
// each written key is still as read (absent, or at the stamp read). A
// batch whose check fails (the target changed meanwhile) is planned again,
// up to copyAttempts times. Exit 1 when keys were skipped because they
// differ in the target (or cannot be copied), else 0.
// Writes names the write for the read-only refusal (writer); a dry run
// writes nothing.
func (c *CopyCmd) Writes() string {
	if c.DryRun {
		return ""
	}
	return "copy"
}

func (c *CopyCmd) Run(app *App) error {
	prefix, err := ParseKey("PREFIX", c.Prefix)
	if err != nil {
		return err
	}
	from, to, err := c.openSides(app)
	if err != nil {
		return err
	}
	sum := copySummary{Summary: true, DryRun: c.DryRun}
	var batch []store.Entry
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := c.copyBatch(app.Context(), app, to, batch, &sum)
		batch = batch[:0]
		return err
	}
	err = from.Scan(app.Context(), store.ListOptions{Prefix: prefix}, func(e store.Entry) error {
		batch = append(batch, e)
		if len(batch) == copyBatch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	// The summary comes whether or not copy finished: after an interrupt
	// or an error it is what the commits made so far did, each all or
	// nothing.
	verb := "copied"
	if c.DryRun {
		verb = "would copy"
	}
	app.Out.Result(sum, fmt.Sprintf("%s %d (created %d, overwritten %d); unchanged %d; skipped %d (differ in the target%s); invalid %d; %d commit(s)",
		verb, sum.Created+sum.Overwritten, sum.Created, sum.Overwritten, sum.Unchanged, sum.Skipped, map[bool]string{true: "", false: "; --overwrite writes them"}[c.Overwrite], sum.Invalid, sum.Commits))
	if err != nil {
		return fmt.Errorf("copy stopped after %s (%s created, %d overwritten; every commit is all or nothing): %w",
			plural(int64(sum.Commits), "commit"), plural(int64(sum.Created), "row"), sum.Overwritten, err)
	}
	if sum.Skipped > 0 || sum.Invalid > 0 {
		return NotDone("")
	}
	return nil
}

// openSides opens --from read-only and --to (journaled; read-only for a
// dry run), each with its own token; the same database twice, or a target
// that is read-only, is refused before anything is opened.
func (c *CopyCmd) openSides(app *App) (from, to *store.Store, err error) {
	fromURL, fromToken, _, _, err := copySide(app, "from", c.From, c.FromTok)
	if err != nil {
		return nil, nil, err
	}
	toURL, toToken, toRO, toName, err := copySide(app, "to", c.To, c.ToTok)
	if err != nil {
		return nil, nil, err
	}
	if sameDatabase(fromURL, toURL) {
		return nil, nil, fmt.Errorf("--from and --to are the same store (%s)", store.RedactURL(fromURL))
	}
	if !c.DryRun && (app.Globals.ReadOnly || (toRO && !app.Globals.Write)) {
		why := "the store was opened with --read-only"
		if !app.Globals.ReadOnly {
			why = fmt.Sprintf("store %s is saved read-only; give --write to write to it", toName)
		}
		return nil, nil, fmt.Errorf("%w: copy refused; %s", store.ErrReadOnly, why)
	}
	from, err = app.Open(app.Context(), Opening{URL: fromURL, Token: fromToken, Access: ReadOnly})
	if err != nil {
		return nil, nil, fmt.Errorf("--from: %w", noTokenHint(err, fromToken, "--from", "--from-auth-token"))
	}
	// The target is read-only for a dry run, else writable (refused
	// above when it is not), and journaled.
	access := Writable
	if c.DryRun {
		access = ReadOnly
	}
	to, err = app.Open(app.Context(), Opening{URL: toURL, Token: toToken, Access: access, Create: Creation(!c.DryRun)})
	if err != nil {
		return nil, nil, fmt.Errorf("--to: %w", noTokenHint(err, toToken, "--to", "--to-auth-token"))
	}
	return from, to, nil
}

// copyBatch plans one batch against the target and commits it (unless
// --dry-run), planning again when the target changed in between.
func (c *CopyCmd) copyBatch(ctx context.Context, app *App, to *store.Store, batch []store.Entry, sum *copySummary) error {
	for attempt := 1; ; attempt++ {
		keys := make([]codec.Key, 0, len(batch))
		var src []store.Entry
		for _, e := range batch {
			if e.KeyErr != nil || e.Malformed != "" || e.ValueNull {
				continue // Scan of live rows under a decodable prefix yields none; kept safe
			}
			keys = append(keys, e.Key)
			src = append(src, e)
		}
		cur, err := to.GetMany(ctx, keys)
		if err != nil {
			return fmt.Errorf("--to: %w", err)
		}
		checks, sets, rows, part := c.plan(src, cur)
		if len(sets) > 0 && !c.DryRun {
			res, err := to.SetManyChecked(ctx, checks, sets)
			if err != nil {
				return fmt.Errorf("--to: %w", err)
			}
			if !res.OK {
				if attempt < copyAttempts {
					continue // the target changed since it was read: plan again
				}
				return NotDone("copy: the target kept changing under the batch starting at %s (%d attempts); nothing of that batch was written", codec.Format(src[0].Key), copyAttempts)
			}
			part.Commits, part.Stamp = 1, res.Versionstamp
		}
		for _, r := range rows {
			if r.Action != "unchanged" { // counted in the summary only
				app.Out.Result(r, copyRowText(r))
			}
		}
		sum.add(part)
		return nil
	}
}

// plan decides each source row against the target's row now (cur, in the
// same order): create (checked absent), overwrite (checked at the stamp
// read, only with --overwrite), unchanged, skip, or invalid.
func (c *CopyCmd) plan(src []store.Entry, cur []*store.Entry) (checks []store.Check, sets []store.Mutation, rows []copyRow, part copySummary) {
	for i, e := range src {
		r := copyRow{Key: e.Key}
		norm, nerr := codec.NormalizeJSON(e.Value)
		switch t := cur[i]; {
		case nerr != nil:
			r.Action, r.Reason = "invalid", "the value is not JSON: "+nerr.Error()
			part.Invalid++
		case t == nil:
			r.Action = "create"
			checks = append(checks, store.Check{Key: e.Key})
			part.Created++
		case sameRow(norm, e.ExpiresAt, t):
			r.Action, r.Target = "unchanged", t.Versionstamp()
			part.Unchanged++
		case !c.Overwrite:
			r.Action, r.Target, r.Reason = "skip", t.Versionstamp(), "differs in the target"
			part.Skipped++
		default:
			r.Action, r.Target = "overwrite", t.Versionstamp()
			checks = append(checks, store.Check{Key: e.Key, Versionstamp: t.Versionstamp()})
			part.Overwritten++
		}
		if r.Action == "create" || r.Action == "overwrite" {
			sets = append(sets, store.Mutation{Type: store.MutationSet, Key: e.Key, Value: norm, ExpiresAt: e.ExpiresAt})
		}
		rows = append(rows, r)
	}
	return checks, sets, rows, part
}

// add counts a committed (or, dry, planned) batch into the summary.
func (s *copySummary) add(part copySummary) {
	s.Created += part.Created
	s.Overwritten += part.Overwritten
	s.Unchanged += part.Unchanged
	s.Skipped += part.Skipped
	s.Invalid += part.Invalid
	s.Commits += part.Commits
	if part.Stamp != "" {
		s.Stamp = part.Stamp
	}
}

// sameDatabase reports whether two URLs name one database: the same file
// (by absolute path, whatever the URL form) or the same server URL. A
// server reached by two names is not recognised.
func sameDatabase(a, b string) bool {
	ta, erra := store.ParseTarget(a)
	tb, errb := store.ParseTarget(b)
	if erra != nil || errb != nil {
		return a == b
	}
	if ta.Transport == store.TransportFile && tb.Transport == store.TransportFile {
		pa, err1 := filepath.Abs(ta.Path)
		pb, err2 := filepath.Abs(tb.Path)
		return err1 == nil && err2 == nil && pa == pb
	}
	return ta.Transport == tb.Transport && ta.URL == tb.URL && ta.Namespace == tb.Namespace
}

// sameRow reports whether the target's row already holds value (normalised
// JSON) with the same expiry: writing it would change nothing but its stamp.
func sameRow(value []byte, expiresAt *int64, t *store.Entry) bool {
	tv, err := codec.NormalizeJSON(t.Value)
	if err != nil || !bytes.Equal(tv, value) {
		return false
	}
	switch {
	case expiresAt == nil || t.ExpiresAt == nil:
		return expiresAt == nil && t.ExpiresAt == nil
	default:
		return *expiresAt == *t.ExpiresAt
	}
}

// copyRowText is a key's text line.
func copyRowText(r copyRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-9s %s", r.Action, codec.Format(r.Key))
	if r.Target != "" {
		fmt.Fprintf(&b, "  target %s", r.Target)
	}
	if r.Reason != "" {
		fmt.Fprintf(&b, "  (%s)", r.Reason)
	}
	return b.String()
}
