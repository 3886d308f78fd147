package cli

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"strings"

	"kvdeck/codec"
	"kvdeck/internal/dumpfile"
	"kvdeck/internal/usertext"
	"kvdeck/store"
)

// DiffCmd compares two stores, two dumps, or a store and a dump.
type DiffCmd struct {
	A        string `arg:"" name:"a" help:"A store (URL or path of a database) or a dump file (- for stdin)."`
	B        string `arg:"" name:"b" help:"The other store or dump file."`
	Prefix   string `name:"prefix" placeholder:"KEY" help:"Compare only the rows under this key prefix."`
	Live     bool   `name:"live" help:"Compare only rows live at now (--now); by default every physical row, expired ones too."`
	Stamps   bool   `name:"stamps" help:"A different versionstamp alone makes a row changed (by default value and expiry are compared: a load issues new stamps)."`
	Paths    bool   `name:"paths" help:"Under each changed key, the JSON paths its value changed at (jq syntax, arrays by index), old -> new; -o json adds a \"paths\" array."`
	MaxPaths int    `name:"max-paths" default:"100" placeholder:"N" help:"With --paths, list at most N paths a key (0: all) and count the rest."`
	ATok     string `name:"a-auth-token" placeholder:"TOKEN" env:"KVDECK_DIFF_A_AUTH_TOKEN" help:"Auth token for A's server only. Never printed."`
	BTok     string `name:"b-auth-token" placeholder:"TOKEN" env:"KVDECK_DIFF_B_AUTH_TOKEN" help:"Auth token for B's server only. Never printed."`
}

// Help states the exit codes and what is compared.
func (c *DiffCmd) Help() string {
	return `Compares the rows of A and B in key order and prints each difference:
"added" (in B only), "removed" (in A only), "changed" (in both, with
another value or expiry; with --stamps also another versionstamp), then a
summary. Text by default (+, -, ~ lines); -o json prints one object per
difference and a summary object.

--paths lists under each changed key the JSON paths its value changed at,
as jq writes them (.a.b[2]), old -> new: values compared as the store
keeps them (member order and number spelling do not count), arrays by
index; at most --max-paths a key (100; 0: all), the rest counted. -o json
adds a "paths" array of {path, steps (jq's getpath), diff, a, b}: null
when a value is not JSON, [] when no path changed.

A and B are each a store (file:PATH, libsql://, http(s)://, ws(s)://, or
the path of a SQLite database), opened read-only, or a dump file as
"kvdeck dump" writes it (JSON lines in key order; - reads stdin). Both
sides are read as streams in key order, so memory stays flat whatever
their size; a dump whose lines are out of key order is refused.

Either side can be a store as it was: STORE@TIME, where STORE is a saved
store, a URL or path, or nothing for the store of --db/--store, and TIME
is as --at takes it (RFC 3339, -10m, txid:N): diff prod@-10m prod shows
what changed in the last ten minutes (history lists the points).

A token goes only to the server it was given for: --a-auth-token to A's
server, --b-auth-token to B's. The global token (--auth-token or its
environment variables) goes to a side only when that side is on the
server of --db (or KVDECK_DB, ...), the one it was given for; any other
server gets none and must be given its own.

Exit status, as diff(1): 0 when A and B hold the same rows, 1 when they
differ, 2 on an error.`
}

// diffRow is one row of either side, in the form a dump carries it.
type diffRow struct {
	raw       []byte
	key       codec.Key // nil when the key does not decode
	value     []byte    // JSON as stored, or the raw text when it is not JSON
	valid     bool      // value is JSON
	stamp     string
	expiresAt *int64
	// keyNull: another program's row with a NULL key (raw is nil). Such
	// rows come first, as dump lists them, and are paired in the order
	// each side lists them (they have no key to match by).
	keyNull bool
	// valueNull: its value is NULL (value nil, valid false).
	valueNull bool
}

// diffSide is one row in an output line.
type diffSide struct {
	Value        json.RawMessage `json:"value"`
	Versionstamp *string         `json:"versionstamp"`
	ExpiresAt    *int64          `json:"expiresAt"`
	Error        string          `json:"error,omitempty"`
}

// diffJSON is one difference.
type diffJSON struct {
	Diff string     `json:"diff"`
	Key  *codec.Key `json:"key"`
	Hex  *string    `json:"hex"` // null for a NULL key
	A    *diffSide  `json:"a"`
	B    *diffSide  `json:"b"`
	// Paths (--paths, a changed row): the changed JSON paths, null when a
	// side is not JSON; MorePaths counts those past --max-paths.
	Paths     json.RawMessage `json:"paths,omitempty"`
	MorePaths int             `json:"morePaths,omitempty"`
}

// diffSummary is the last line.
type diffSummary struct {
	Summary struct {
		Added   int64 `json:"added"`
		Removed int64 `json:"removed"`
		Changed int64 `json:"changed"`
		Same    int64 `json:"same"`
	} `json:"summary"`
}

// Run merges both sides in key order.
func (c *DiffCmd) Run(app *App) error {
	prefix, err := ParseOptionalKey("--prefix", c.Prefix)
	if err != nil {
		return err
	}
	if app.Globals.At != "" {
		return errors.New("diff takes a time for each side, as STORE@TIME (diff @-10m prod), not --at")
	}
	if c.A == "-" && c.B == "-" {
		return errors.New("both sides are - (stdin): at most one of A and B can be read from stdin")
	}
	ctx, cancel := context.WithCancel(app.Context())
	defer cancel()
	sides, err := c.openSides(ctx, app, prefix)
	if err != nil {
		return err
	}
	nextA, stopA := iter.Pull2(sides[0])
	defer stopA()
	nextB, stopB := iter.Pull2(sides[1])
	defer stopB()
	sum, err := c.merge(app, nextA, nextB)
	if err != nil {
		return err
	}
	s := sum.Summary
	app.Out.Result(sum, fmt.Sprintf("# %d added, %d removed, %d changed, %d the same", s.Added, s.Removed, s.Changed, s.Same))
	if s.Added+s.Removed+s.Changed > 0 {
		return NotDone("")
	}
	return nil
}

// openSides opens A and B, each with the token meant for its server.
func (c *DiffCmd) openSides(ctx context.Context, app *App, prefix codec.Key) ([2]iter.Seq2[diffRow, error], error) {
	var sides [2]iter.Seq2[diffRow, error]
	for _, side := range []struct{ name, arg, tok string }{{"a", c.A, c.ATok}, {"b", c.B, c.BTok}} {
		if side.tok != "" && diffServer(side.arg) == "" {
			return sides, fmt.Errorf("%w: --%s-auth-token is for a server, and %s is not one", store.ErrBadURL, side.name, shown(side.arg))
		}
	}
	tokA, tokB := diffTokens(app, c)
	for i, arg := range []string{c.A, c.B} {
		name := [2]string{"A", "B"}[i]
		seq, err := openDiffSide(ctx, app, name, arg, [2]string{tokA, tokB}[i], prefix)
		if err != nil {
			return sides, err
		}
		sides[i] = seq
	}
	return sides, nil
}

// merge walks both sides in key order, printing each difference.
func (c *DiffCmd) merge(app *App, nextA, nextB func() (diffRow, error, bool)) (diffSummary, error) {
	now := app.Now()
	pull := func(next func() (diffRow, error, bool)) (*diffRow, error) {
		for {
			r, err, ok := next()
			if !ok || err != nil {
				return nil, err
			}
			if c.Live && r.expiresAt != nil && *r.expiresAt <= now {
				continue
			}
			return &r, nil
		}
	}
	var sum diffSummary
	a, err := pull(nextA)
	if err != nil {
		return sum, err
	}
	b, err := pull(nextB)
	if err != nil {
		return sum, err
	}
	for a != nil || b != nil {
		cmp := compareRows(a, b)
		switch {
		case cmp < 0:
			sum.Summary.Removed++
			c.print(app, now, "removed", a, nil)
		case cmp > 0:
			sum.Summary.Added++
			c.print(app, now, "added", nil, b)
		case c.same(a, b):
			sum.Summary.Same++
		default:
			sum.Summary.Changed++
			c.print(app, now, "changed", a, b)
		}
		if cmp <= 0 {
			if a, err = pull(nextA); err != nil {
				return sum, err
			}
		}
		if cmp >= 0 {
			if b, err = pull(nextB); err != nil {
				return sum, err
			}
		}
	}
	return sum, nil
}

// compareRows orders two rows by key; a side that has ended (nil) comes
// after every row, a NULL key before every key (as SQLite orders them),
// and two NULL keys are paired.
func compareRows(a, b *diffRow) int {
	switch {
	case a == nil:
		return 1
	case b == nil:
		return -1
	case a.keyNull || b.keyNull:
		if a.keyNull && b.keyNull {
			return 0
		}
		if a.keyNull {
			return -1
		}
		return 1
	}
	return bytes.Compare(a.raw, b.raw)
}

// same reports whether two rows at one key hold the same thing.
func (c *DiffCmd) same(a, b *diffRow) bool {
	if !bytes.Equal(a.value, b.value) || a.valid != b.valid || a.valueNull != b.valueNull || (a.expiresAt == nil) != (b.expiresAt == nil) ||
		(a.expiresAt != nil && *a.expiresAt != *b.expiresAt) {
		return false
	}
	return !c.Stamps || a.stamp == b.stamp
}

// print writes one difference; now decides which rows are expired.
func (c *DiffCmd) print(app *App, now int64, what string, a, b *diffRow) {
	r := a
	if r == nil {
		r = b
	}
	out := diffJSON{Diff: what, A: a.side(), B: b.side()}
	if !r.keyNull {
		h := hex.EncodeToString(r.raw)
		out.Hex = &h
	}
	if r.key != nil {
		k := r.key
		out.Key = &k
	}
	var paths []string
	if c.Paths && what == "changed" {
		paths = c.paths(&out, a, b)
	}
	if app.Out.JSON() {
		app.Out.Object(out)
		return
	}
	switch what {
	case "removed":
		app.Out.Textf("- %s  %s", r.name(), a.text(now))
	case "added":
		app.Out.Textf("+ %s  %s", r.name(), b.text(now))
	default:
		app.Out.Textf("~ %s  %s  ->  %s", r.name(), a.text(now), b.text(now))
		for _, p := range paths {
			app.Out.Textf("    %s", p)
		}
	}
}

func (r *diffRow) side() *diffSide {
	if r == nil {
		return nil
	}
	s := &diffSide{ExpiresAt: r.expiresAt}
	if r.stamp != "" {
		stamp := r.stamp
		s.Versionstamp = &stamp
	}
	switch {
	case r.valueNull:
		s.Value, s.Error = json.RawMessage("null"), nullValueError
	case r.valid:
		s.Value, _ = jsonValue(r.value)
	default:
		s.Value, s.Error = marshalString(string(r.value)), "value is not valid JSON"
	}
	return s
}

// text is a row's value, stamp and expiry for a text line, as the other
// text outputs write them: the value shortened (shortValue), the expiry in
// RFC 3339 (timeText), and "expired" when it is at or before now.
func (r *diffRow) text(now int64) string {
	var b strings.Builder
	if r.valueNull {
		b.WriteString("NULL")
	} else if v, ok := jsonValue(r.value); ok && r.valid {
		b.WriteString(shortValue(string(v)))
	} else {
		b.WriteString("raw:" + shortValue(string(marshalString(string(r.value)))))
	}
	if r.stamp != "" {
		b.WriteString("  v=" + r.stamp)
	}
	if r.expiresAt != nil {
		b.WriteString("  expires=" + timeText(*r.expiresAt))
		if *r.expiresAt <= now {
			b.WriteString("  expired")
		}
	}
	return b.String()
}

// name is how a row's key is shown in text and in errors: its key text
// (escaped: usertext.Sanitize), 0x<hex> when it does not decode, NULL for
// another program's NULL key.
func (r *diffRow) name() string {
	switch {
	case r.keyNull:
		return "NULL"
	case r.key != nil:
		return usertext.Sanitize(codec.Format(r.key))
	}
	return "0x" + hex.EncodeToString(r.raw)
}

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// openDiffSide opens one side: a dump file (or stdin), else a store, read
// only. A path that exists is a database when it starts with SQLite's
// header, a dump otherwise; a URL is a store.
func openDiffSide(ctx context.Context, app *App, name, arg, token string, prefix codec.Key) (iter.Seq2[diffRow, error], error) {
	if base, at, ok := splitPast(arg, app.Now()); ok {
		return openPastSide(ctx, app, name, base, at, token, prefix) // timemachine.go
	}
	isDump := arg == "-"
	if !isDump && !hasScheme(arg) {
		f, err := os.Open(arg)
		var pe *fs.PathError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("%s: no file %s (a side is a database file, a URL, or a dump file; - reads stdin)", name, shown(arg))
		case errors.As(err, &pe):
			return nil, fmt.Errorf("%s: cannot read %s: %w", name, shown(arg), pe.Err)
		case err != nil:
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		head := make([]byte, len(sqliteHeader))
		n, _ := io.ReadFull(f, head)
		f.Close()
		isDump = string(head[:n]) != sqliteHeader
	}
	if isDump {
		return checkedDump(app, name, arg, prefix)
	}
	s, err := app.Open(ctx, Opening{URL: arg, Token: token, Access: ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, noTokenHint(err, token, name, "--"+strings.ToLower(name)+"-auth-token"))
	}
	return storeRows(ctx, name, s, prefix), nil
}

// diffTokens is the token each side's server gets: its own flag's, else
// the global token where it was given for that server (globalTokenFor:
// the server of --db), else none.
func diffTokens(app *App, c *DiffCmd) (a, b string) {
	pick := func(own, arg string) string {
		if own != "" || diffServer(arg) == "" {
			return own
		}
		return app.globalTokenFor(arg)
	}
	return pick(c.ATok, c.A), pick(c.BTok, c.B)
}

// diffServer is the server of a diff side given as a URL; "" for a file,
// a path or a dump.
func diffServer(arg string) string {
	if !hasScheme(arg) {
		return ""
	}
	return serverOf(arg)
}

// hasScheme reports whether arg is a URL of one of the store's schemes
// rather than a path.
func hasScheme(arg string) bool {
	for _, scheme := range []string{"file:", "libsql:", "http:", "https:", "ws:", "wss:"} {
		if strings.HasPrefix(strings.ToLower(arg), scheme) {
			return true
		}
	}
	return false
}

// errStop ends a store's scan when the merge stops early.
var errStop = errors.New("stop")

// storeRows streams a store's physical rows under prefix in key order.
func storeRows(ctx context.Context, name string, s *store.Store, prefix codec.Key) iter.Seq2[diffRow, error] {
	return func(yield func(diffRow, error) bool) {
		err := s.DumpAll(ctx, prefix, func(e store.Entry) error {
			r := diffRow{raw: e.Raw, key: e.Key, valid: validJSON(e.Value), value: e.Value, expiresAt: e.ExpiresAt,
				keyNull: e.KeyNull, valueNull: e.ValueNull}
			if e.KeyErr != nil {
				r.key = nil
			}
			if r.valid {
				if v, err := codec.NormalizeJSON(e.Value); err == nil {
					r.value = v
				}
			}
			if e.Malformed == "" || !strings.Contains(e.Malformed, "ver") {
				r.stamp = e.Versionstamp()
			}
			if !yield(r, nil) {
				return errStop
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			// Which side failed, as for every other diff error.
			yield(diffRow{}, fmt.Errorf("%s: %w", name, err))
		}
	}
}

// dumpRows streams the rows of a dump under prefix, checking that they
// come in key order.
func dumpRows(name string, in io.ReadCloser, prefix codec.Key) iter.Seq2[diffRow, error] {
	lo := codec.MustEncode(prefix)
	hi := codec.PrefixEnd(lo)
	return func(yield func(diffRow, error) bool) {
		defer in.Close()
		var prev diffRow // the last row with a key
		keyed := false   // a row with a key was read
		stopped := false
		err := dumpfile.EachLine(in, func(line []byte, n int) error {
			r, ok, err := parseDiffLine(line, n)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if !ok {
				return nil
			}
			switch {
			case r.keyNull && keyed:
				return fmt.Errorf("%s line %d: a NULL key after the key %s: a dump lists the NULL keys first (kvdeck dump writes it so)", name, n, prev.name())
			case r.keyNull:
				if len(prefix) > 0 { // under no prefix
					return nil
				}
			case keyed && bytes.Compare(r.raw, prev.raw) <= 0:
				return fmt.Errorf("%s line %d: key %s is not after the previous line's %s: a dump is in key order (kvdeck dump writes it so)", name, n, r.name(), prev.name())
			default:
				prev, keyed = r, true
				if len(prefix) > 0 && (bytes.Compare(r.raw, lo) < 0 || bytes.Compare(r.raw, hi) >= 0) {
					return nil
				}
			}
			if !yield(r, nil) {
				stopped = true
				return errStop
			}
			return nil
		})
		if err != nil && !stopped {
			yield(diffRow{}, err)
		}
	}
}

// checkedDump reads a dump side whole before the merge prints anything:
// every line parses and the keys come in order, so a bad dump is refused
// as soon as its line is read, before the other side streams a single
// difference (the refusal came only when the merge
// reached the line, after the other side had streamed). A file is read
// again for the merge; stdin is kept, as it is checked, in a temporary
// file removed at once (the open descriptor keeps it until the merge
// closes it), so memory stays flat either way.
func checkedDump(app *App, name, arg string, prefix codec.Key) (iter.Seq2[diffRow, error], error) {
	in, err := OpenInput(arg, app.Stdin)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	src := io.Reader(in)
	var spool *os.File
	if arg == "-" {
		if spool, err = os.CreateTemp("", "kvdeck-diff-*.jsonl"); err != nil {
			return nil, fmt.Errorf("%s: keep stdin to compare it: %w", name, err)
		}
		_ = os.Remove(spool.Name())
		src = io.TeeReader(in, spool)
	}
	for _, err := range dumpRows(name, io.NopCloser(src), nil) {
		if err != nil {
			in.Close()
			if spool != nil {
				spool.Close()
			}
			return nil, err
		}
	}
	in.Close()
	if spool == nil {
		again, err := OpenInput(arg, app.Stdin)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return dumpRows(name, again, prefix), nil
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		spool.Close()
		return nil, fmt.Errorf("%s: read stdin back: %w", name, err)
	}
	return dumpRows(name, spool, prefix), nil
}

// parseDiffLine reads one dump line (dumpfile.Parse), the rows load
// skips included: a key that does not decode, a value that is not JSON.
func parseDiffLine(line []byte, n int) (r diffRow, ok bool, err error) {
	l, ok, err := dumpfile.Parse(line, n)
	r = diffRow{raw: l.Raw, key: l.Key, value: l.Value, valid: l.Valid, stamp: l.Stamp, expiresAt: l.ExpiresAt, keyNull: l.KeyNull, valueNull: l.ValueNull}
	return r, ok, err
}
