package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"kvdeck/codec"
)

// The key finder (the TUI's ctrl+p, :find): keys whose text contains a
// needle, across the whole store. A string or bytes part is stored as its
// bytes (a 0x00 as 0x00 0xFF) between its tag and a 0x00, so instr on the
// encoded key finds the needle's bytes inside a part: the server filters,
// and each candidate is confirmed here by decoding its key (the needle's
// bytes could straddle two parts, or sit in a number's bytes). Numbers,
// bigints and booleans are stored in binary and never match.
//
// A scan is paged: each FindKeys reads one window of keys in key order
// (one request), sized in bytes over a server as Scan's pages are, and
// says where the next window starts, so a caller can stop between pages.

// DefaultFindMax bounds the matches of a find.
const DefaultFindMax = 200

// findFileRows is the window of one page on a file: small enough that
// a caller can stop between pages of a large store at once.
const findFileRows = 20000

// FoundKey is a live key whose text contains the needle.
type FoundKey struct {
	Key codec.Key
	Raw []byte
}

// FindPage is one window's matches, in key order.
type FindPage struct {
	Matches []FoundKey
	// Next is the raw key the next page starts after; nil when the scan
	// reached the end of the store.
	Next []byte
	// Scanned counts the keys of the window.
	Scanned int
}

// ErrEmptyNeedle is FindKeys' answer to an empty text.
var ErrEmptyNeedle = errors.New("find: nothing to find (an empty text matches every key)")

// FindKeys reads one page of the finder: the live keys after raw key
// after (nil: from the first) in one window whose string or bytes parts
// contain text; limit, when positive, caps the matches (the page then ends
// at the last one kept, and Next continues after it).
func (s *Store) FindKeys(ctx context.Context, text string, after []byte, limit int) (FindPage, error) {
	if text == "" {
		return FindPage{}, ErrEmptyNeedle
	}
	var page FindPage
	var end []byte
	var more int64
	read := func(res resultRows) error {
		page, end, more = FindPage{}, nil, 0
		for res.Next() {
			var k bytesCol
			var last, m, seen int64
			if err := res.Scan(&k, &last, &m, &seen); err != nil {
				return err
			}
			if last == 1 {
				end, more, page.Scanned = k.b, m, int(seen)
				continue
			}
			key, err := codec.Decode(k.b)
			if err != nil || !KeyTextContains(key, text) {
				continue // undecodable, or the bytes are not inside one part
			}
			page.Matches = append(page.Matches, FoundKey{Key: key, Raw: bytes.Clone(k.b)})
		}
		return res.Err()
	}
	// On a rollback-journal file the window is as long as a read without
	// locks beside the file's writer allows (readWindowed): a page of the
	// full window took ~15 ms, longer than a busy service leaves between
	// commits.
	w := s.newReadWindow(windowFind, or(s.knobs.findFileRows, findFileRows))
	if err := s.readWindowed(ctx, w, func(n int) (string, []any) { return s.findSQL(text, after, n) }, read); err != nil {
		return FindPage{}, s.classify(err)
	}
	if more > 0 {
		page.Next = end
	}
	if limit > 0 && len(page.Matches) > limit {
		page.Matches = page.Matches[:limit]
		page.Next = page.Matches[limit-1].Raw
	}
	s.rowsRead.Add(int64(page.Scanned))
	return page, nil
}

// findSQL is a find page's statement over the window of keys after
// after (from the start when nil), of fileRows keys on a file: the
// matching live keys, then one last row with the window's end, how many
// rows follow it and how many it held.
func (s *Store) findSQL(text string, after []byte, fileRows int) (string, []any) {
	rows, budget := fileRows, int64(1)<<62
	sized := s.conn.traits().sized
	if sized {
		rows, budget = s.remotePage()
	}
	lo, op := after, ">"
	if lo == nil {
		lo, op = []byte{}, ">="
	}
	// w: the window, one row more than asked (tells whether more follow);
	// c: the rows of the window within both bounds. Every row is costed
	// as if it matched (entryCostSQL's key share), so an answer stays
	// under the server's limit however many match. The last row of the
	// answer is the window's end and whether more follow.
	q := "WITH w AS (SELECT k, expires_at, row_number() OVER (ORDER BY k) AS n, " +
		"sum(160 + 2 * length(k)) OVER (ORDER BY k ROWS UNBOUNDED PRECEDING) - (160 + 2 * length(k)) AS run " +
		"FROM (SELECT k, expires_at FROM kv WHERE k " + op + " ? ORDER BY k LIMIT ?)), " +
		"c AS (SELECT k, expires_at FROM w WHERE n <= ? AND run < ?) " +
		"SELECT * FROM (SELECT k, 0 AS last, 0 AS more, 0 AS seen FROM c WHERE instr(CAST(k AS BLOB), ?) > 0 AND " + liveSQL + " ORDER BY k) " +
		"UNION ALL SELECT (SELECT max(k) FROM c), 1, (SELECT count(*) FROM w) - (SELECT count(*) FROM c), (SELECT count(*) FROM c)"
	args := []any{lo, rows + 1, rows, budget, findNeedle(text), s.Now()}
	if !sized {
		// A file answers in memory: the window in rows alone, without
		// the running size (which made a find slower than a Scan of the
		// same keys), and a full window says more may follow (the last
		// page of a file may be an empty read: cheap).
		q = "WITH w AS MATERIALIZED (SELECT k, expires_at FROM kv WHERE k " + op + " ? ORDER BY k LIMIT ?) " +
			"SELECT * FROM (SELECT k, 0 AS last, 0 AS more, 0 AS seen FROM w WHERE instr(CAST(k AS BLOB), ?) > 0 AND " + liveSQL + " ORDER BY k) " +
			"UNION ALL SELECT (SELECT max(k) FROM w), 1, (SELECT count(*) FROM w) >= ?, (SELECT count(*) FROM w)"
		args = []any{lo, rows, findNeedle(text), s.Now(), rows}
	}
	return q, args
}

// findNeedle is text as it sits in an encoded string part: its bytes,
// each 0x00 escaped as 0x00 0xFF.
func findNeedle(text string) []byte {
	return bytes.ReplaceAll([]byte(text), []byte{0}, []byte{0, 0xFF})
}

// KeyTextContains says whether a string or bytes part of k contains text.
func KeyTextContains(k codec.Key, text string) bool {
	for _, p := range k {
		switch p.Kind() {
		case codec.KindString:
			if strings.Contains(p.StringValue(), text) {
				return true
			}
		case codec.KindBytes:
			if bytes.Contains(p.BytesValue(), []byte(text)) {
				return true
			}
		default:
			// Numbers, bigints and booleans are stored in binary.
		}
	}
	return false
}

// FindAll runs FindKeys page by page until limit matches (DefaultFindMax
// when not positive) or the end of the store, calling page after each
// page; page returning false stops the scan.
func (s *Store) FindAll(ctx context.Context, text string, limit int, page func(FindPage) bool) ([]FoundKey, error) {
	if limit <= 0 {
		limit = DefaultFindMax
	}
	var out []FoundKey
	var after []byte
	for {
		p, err := s.FindKeys(ctx, text, after, limit-len(out))
		if err != nil {
			return out, fmt.Errorf("find %q: %w", text, err)
		}
		out = append(out, p.Matches...)
		if page != nil && !page(p) {
			return out, nil
		}
		if p.Next == nil || len(out) >= limit {
			return out, nil
		}
		after = p.Next
	}
}
