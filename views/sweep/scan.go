package sweep

import (
	"bytes"
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views/widgets"
)

// scanTimeout bounds the census of a large store (one short read per
// page; a million rows take seconds).
const scanTimeout = 2 * time.Minute

// previewMax is how many expired rows a census keeps for the preview.
const previewMax = 200

// soonWindow is the look-ahead of the census: rows that expire within it
// would be swept by a sweep run that much later (or with :clock +10m).
const soonWindow = 10 * time.Minute

// sweepScope is one top-level prefix of the census, or every row.
type sweepScope struct {
	part        codec.Part
	raw         []byte // part's encoding
	all         bool   // every row, undecodable ones included
	undecodable bool   // rows whose key does not decode: not addressable by prefix
	rows        int64
	expired     int64
	bytes       int64 // encoded key + value of the expired rows
	soon        int64 // live rows that expire within soonWindow
	next        *int64
	expiring    []int64 // live rows expiring in each slice of the next hour
}

// prefix is the scope's key prefix for store.SweepOptions.
func (s sweepScope) prefix() codec.Key {
	if s.all || s.undecodable {
		return nil
	}
	return codec.Key{s.part}
}

// expiredRow is one row of the preview.
type expiredRow struct {
	scope     int // index into census.scopes
	key       codec.Key
	raw       []byte
	expiresAt int64
}

// census is what one scan of the store found at now.
type census struct {
	now     int64
	scopes  []sweepScope // [0] is every row
	preview []expiredRow
	// fit is the table laid out for the census's rows (a census is
	// replaced, never changed: the layout holds until the next one).
	fit *fittedTable
	// shownBy are the rows the filter last shown keeps (Model.shown).
	shownBy *filtered
}

// filtered are the census rows a filter keeps.
type filtered struct {
	filter string
	rows   []int
}

// fittedTable is a census table's layout for one width and filter.
type fittedTable struct {
	w      int
	filter string
	t      widgets.Table
}

// fromStats builds the census from the store's aggregates: one scope per
// top-level part, the empty key and the undecodable rows together (no
// prefix addresses them).
func fromStats(now int64, st store.Stats) census {
	c := census{now: now, scopes: []sweepScope{{all: true}}}
	other := -1
	for _, p := range st.ByPrefix {
		figures := sweepScope{rows: p.Rows, expired: p.Expired, bytes: p.ExpiredBytes, soon: p.Soon, next: p.NextExpiry, expiring: p.Expiring}
		c.scopes[0].merge(figures)
		if p.Undecodable || len(p.Raw) == 0 {
			if other < 0 {
				c.scopes = append(c.scopes, sweepScope{undecodable: true})
				other = len(c.scopes) - 1
			}
			c.scopes[other].merge(figures)
			continue
		}
		figures.part, figures.raw = p.Part, p.Raw
		c.scopes = append(c.scopes, figures)
	}
	return c
}

// merge adds another scope's figures to s.
func (s *sweepScope) merge(o sweepScope) {
	s.rows += o.rows
	s.expired += o.expired
	s.bytes += o.bytes
	s.soon += o.soon
	if o.next != nil && (s.next == nil || *o.next < *s.next) {
		s.next = o.next
	}
	s.expiring = addSlices(s.expiring, o.expiring)
}

// scopeOf returns the index of the scope a row belongs to.
func (c *census) scopeOf(e store.Entry) int {
	if e.KeyErr == nil && len(e.Key) > 0 {
		enc := codec.MustEncode(codec.Key{e.Key[0]})
		for i, sc := range c.scopes {
			if !sc.all && !sc.undecodable && bytes.Equal(sc.raw, enc) {
				return i
			}
		}
	}
	for i, sc := range c.scopes {
		if sc.undecodable {
			return i
		}
	}
	return 0
}

// censusDone answers takeCensus.
type censusDone struct {
	session, gen int
	census       census
	err          error
}

// takeCensus counts what a sweep at now would remove, per top-level
// prefix, with aggregates computed by SQL (store.Census: only figures
// travel, a few requests to a server), then reads the first previewMax
// expired rows for the preview.
func takeCensus(src *store.Store, session, gen int, now int64) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), scanTimeout)
		defer cancel()
		st, err := src.Census(ctx, store.CensusOptions{Now: now, Soon: now + soonWindow.Milliseconds(), Expiring: expiringSlices, Expiries: true})
		if err != nil {
			return censusDone{session: session, gen: gen, err: err}
		}
		c := fromStats(now, st)
		if c.scopes[0].expired > 0 {
			err = src.ScanExpired(ctx, nil, now, previewMax, func(e store.Entry) error {
				c.preview = append(c.preview, expiredRow{scope: c.scopeOf(e), key: e.Key, raw: e.Raw, expiresAt: *e.ExpiresAt})
				return nil
			})
		}
		return censusDone{session: session, gen: gen, census: c, err: err}
	}
}
