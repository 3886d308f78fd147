package sweep

import (
	"bytes"
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views"
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
	all         bool // every row, undecodable ones included
	undecodable bool // rows whose key does not decode: not addressable by prefix
	rows        int64
	expired     int64
	bytes       int64 // encoded key + value of the expired rows
	soon        int64 // live rows that expire within soonWindow
	next        *int64
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
	cur     []byte // the encoded part of the last scope added
}

// add counts one row.
func (c *census) add(e store.Entry) {
	sc := c.scopeOf(e)
	live := e.Live(c.now)
	c.scopes[0].count(e, live, c.now)
	c.scopes[sc].count(e, live, c.now)
	if !live && len(c.preview) < previewMax {
		c.preview = append(c.preview, expiredRow{scope: sc, key: e.Key, raw: e.Raw, expiresAt: *e.ExpiresAt})
	}
}

// count adds one row to the scope's figures.
func (s *sweepScope) count(e store.Entry, live bool, now int64) {
	s.rows++
	switch {
	case !live:
		s.expired++
		s.bytes += int64(len(e.Raw) + len(e.Value))
		return
	case e.ExpiresAt == nil:
		return
	}
	if *e.ExpiresAt <= now+soonWindow.Milliseconds() {
		s.soon++
	}
	if s.next == nil || *e.ExpiresAt < *s.next {
		at := *e.ExpiresAt
		s.next = &at
	}
}

// scopeOf returns the index of e's top-level scope, adding it when it is
// new (rows come in key order, so a scope's rows are contiguous).
func (c *census) scopeOf(e store.Entry) int {
	if e.KeyErr != nil || len(e.Key) == 0 {
		if !c.scopes[len(c.scopes)-1].undecodable {
			c.scopes = append(c.scopes, sweepScope{undecodable: true})
			c.cur = nil
		}
		return len(c.scopes) - 1
	}
	enc := codec.MustEncode(codec.Key{e.Key[0]})
	if c.cur == nil || !bytes.Equal(c.cur, enc) {
		c.scopes = append(c.scopes, sweepScope{part: e.Key[0]})
		c.cur = enc
	}
	return len(c.scopes) - 1
}

// censusDone answers takeCensus.
type censusDone struct {
	session, gen int
	census       census
	err          error
}

// takeCensus reads every row, expired ones included, page by page (no
// transaction spans pages) and counts what a sweep at now would remove.
func takeCensus(src views.Store, session, gen int, now int64) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), scanTimeout)
		defer cancel()
		c := census{now: now, scopes: []sweepScope{{all: true}}}
		err := src.Scan(ctx, store.ListOptions{Unbounded: true, IncludeExpired: true}, func(e store.Entry) error {
			c.add(e)
			return nil
		})
		return censusDone{session: session, gen: gen, census: c, err: err}
	}
}
