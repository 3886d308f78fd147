package cli

import (
	"encoding/hex"
	"errors"
	"fmt"

	"kvdeck/codec"
	"kvdeck/internal/valuefilter"
	"kvdeck/store"
)

// ListCmd lists live entries.
type ListCmd struct {
	Prefix  string `arg:"" optional:"" name:"prefix" help:"Key prefix (the key equal to it is listed too); all keys when omitted."`
	Start   string `name:"start" placeholder:"KEY" help:"Inclusive lower bound."`
	End     string `name:"end" placeholder:"KEY" help:"Exclusive upper bound."`
	Limit   int    `name:"limit" placeholder:"N" help:"At most N entries (0: no limit)."`
	Reverse bool   `name:"reverse" help:"Descending key order."`

	Where    *string `name:"where" placeholder:"EXPR" xor:"filter" help:"Only entries whose value passes this jq expression (as jq's select: an output other than false or null); $key and $versionstamp name the entry. --limit counts matches."`
	Contains *string `name:"contains" placeholder:"TEXT" xor:"filter" help:"Only entries whose stored value text contains TEXT (byte for byte). --limit counts matches."`
}

// Run streams the entries page by page (store.Scan), never loading the
// whole range; a filter prints the matches as it finds them. --contains
// is tested by the server (only matches are read); --where reads every
// row of the range.
func (c *ListCmd) Run(app *App) error {
	prefix, err := ParseOptionalKey("PREFIX", c.Prefix)
	if err != nil {
		return err
	}
	start, err := ParseOptionalKey("--start", c.Start)
	if err != nil {
		return err
	}
	end, err := ParseOptionalKey("--end", c.End)
	if err != nil {
		return err
	}
	if c.Limit < 0 {
		return fmt.Errorf("--limit %d: must not be negative", c.Limit)
	}
	m, err := c.matcher()
	if err != nil {
		return err
	}
	s, err := app.Open(app.Context(), Opening{})
	if err != nil {
		return err
	}
	opts := store.ListOptions{Prefix: prefix, Start: start, End: end, Limit: c.Limit, Reverse: c.Reverse}
	if m == nil {
		return s.Scan(app.Context(), opts, func(e store.Entry) error {
			app.Out.Entry(e, app.Now(), false)
			return nil
		})
	}
	return c.filtered(app, s, opts, m)
}

// matcher compiles --where or --contains; nil when neither is given.
func (c *ListCmd) matcher() (*valuefilter.Matcher, error) {
	switch {
	case c.Where != nil: // given, even empty: an empty one is refused
		m, err := valuefilter.Jq(*c.Where)
		if err != nil {
			return nil, fmt.Errorf("--where: %w", err)
		}
		return m, nil
	case c.Contains != nil:
		m, err := valuefilter.Contains(*c.Contains)
		if err != nil {
			return nil, fmt.Errorf("--contains: %w", err)
		}
		return m, nil
	}
	return nil, nil
}

// filtered prints the entries of the range that match, up to --limit
// matches; values the expression fails on are counted and named once on
// stderr.
func (c *ListCmd) filtered(app *App, s *store.Store, opts store.ListOptions, m *valuefilter.Matcher) error {
	ctx := app.Context()
	opts.Limit = 0
	matched, failed := 0, 0
	var first string
	err := s.Scan(ctx, m.Narrow(opts), func(e store.Entry) error {
		ok, err := m.Match(ctx, e)
		var evalErr *valuefilter.EvalError
		switch {
		case errors.As(err, &evalErr):
			if failed++; failed == 1 {
				first = fmt.Sprintf("%s: %v", entryName(e), err)
			}
			return nil
		case err != nil:
			return err
		case !ok:
			return nil
		}
		app.Out.Entry(e, app.Now(), false)
		if matched++; c.Limit > 0 && matched >= c.Limit {
			return errEnoughMatches
		}
		return nil
	})
	if failed > 0 {
		fmt.Fprintf(app.Stderr, "kvdeck: --where failed on %d value(s), which are not listed; the first: %s\n", failed, first)
	}
	if errors.Is(err, errEnoughMatches) {
		return nil
	}
	return err
}

// errEnoughMatches stops a filtered scan at --limit matches.
var errEnoughMatches = errors.New("enough matches")

// entryName is a row's key text, or its hex when it does not decode.
func entryName(e store.Entry) string {
	if e.KeyErr != nil {
		return "0x" + hex.EncodeToString(e.Raw)
	}
	return codec.Format(e.Key)
}
