package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"

	"kvdeck/codec"
)

// DefaultCountBound is where child counts stop being exact ("10000+").
const DefaultCountBound = 10000

// ChildrenOptions page through the children of a prefix.
type ChildrenOptions struct {
	// After is the seek position returned as ChildPage.Next; nil starts at
	// the first child.
	After []byte
	// Limit is the number of children per page (default 100).
	Limit int
	// CountBound caps each child's row count (default DefaultCountBound).
	CountBound int
}

// Child is one distinct next key part under a prefix.
type Child struct {
	// Part is the decoded part; meaningless when Undecodable.
	Part codec.Part
	// Raw is the encoded key prefix+part (for an undecodable row, its raw key).
	Raw []byte
	// Undecodable marks a row whose part after the prefix does not decode.
	Undecodable bool
	// Count is the number of physical rows under prefix+part (the row equal
	// to it included), capped at CountBound+1.
	Count int64
	// Capped is true when Count stopped at the bound: show "N+".
	Capped bool
	// IsKey is true when a row with exactly the key prefix+part exists.
	IsKey bool
	// ExpiresAt is that row's expiry (nil when it has none or !IsKey), so
	// a tree can mark expired-but-unswept leaves without another read.
	ExpiresAt *int64
}

// HasChildren reports whether the child has rows below it.
func (c Child) HasChildren() bool {
	return c.Count > 1 || (c.Count == 1 && !c.IsKey)
}

// ChildPage is one page of children.
type ChildPage struct {
	Children []Child
	// Next continues the listing (ChildrenOptions.After); nil when done.
	Next []byte
}

// Children lists the distinct next key parts under prefix in one statement:
// a recursive skip-scan that seeks, in SQL, from each child to the first
// key past its range (one indexed single-row seek per child), and counts
// every child's rows up to the bound. It reads one child more than asked to
// know whether another page follows, and never reads a whole range.
// Expired-but-unswept rows count (they are physically there).
func (s *Store) Children(ctx context.Context, prefix codec.Key, opts ChildrenOptions) (ChildPage, error) {
	p, err := codec.Encode(prefix)
	if err != nil {
		return ChildPage{}, err
	}
	limit, bound, pos, hi := opts.resolve(p)
	// On a rollback-journal file the counts are read apart, in windows
	// (countWindowed): counted in the walk, a page's counts examine up to
	// limit*bound rows in one statement, longer than a busy service leaves
	// between two commits for a read without locks.
	apart := s.conn.windowed()
	counted := limit
	if apart {
		counted = 0
	}
	q, args := childrenSQL(len(p), pos, hi, limit, counted, bound)
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return ChildPage{}, err
	}
	defer rows.Close()
	page, mismatch, err := s.readChildren(rows, p, limit, bound)
	if err != nil {
		return ChildPage{}, err
	}
	if apart {
		return page, s.countWindowed(ctx, page.Children, bound)
	}
	if mismatch >= 0 && !page.Children[mismatch].Undecodable {
		// The SQL counted another range than the child's: count again
		// (a second request, for malformed keys only).
		if err := s.countChildren(ctx, page.Children[mismatch:mismatch+1], bound); err != nil {
			return ChildPage{}, err
		}
	}
	return page, nil
}

// readChildren reads the page of children under the encoded prefix p
// from the rows of childrenSQL; mismatch is the child where Go and the
// SQL disagree on where the next child starts (-1: nowhere).
func (s *Store) readChildren(rows *reqRows, p []byte, limit, bound int) (page ChildPage, mismatch int, err error) {
	var read int64
	mismatch = -1
	for rows.Next() {
		var k, next []byte
		var exp expiryCol
		var count sql.NullInt64
		if err := rows.Scan(&k, &exp, &next, &count); err != nil {
			return ChildPage{}, -1, s.classify(err)
		}
		read++
		if page.Next != nil {
			continue // a later row of a page cut short (see below)
		}
		if len(page.Children) == limit {
			page.Next = k // the look-ahead child's first row: the next page starts there
			continue
		}
		page.Children = append(page.Children, childOf(p, k, exp.at, count.Int64, bound))
		// The SQL finds a part's extent but does not check its content: a
		// string of invalid UTF-8 or a NaN number is one undecodable row to
		// Go, a whole child to the SQL, which jumped past its range; and a
		// terminator followed by garbage escapes the SQL. Where they
		// disagree the page ends; the next one starts where Go goes on.
		if goNext := nextChildPos(p, k); !bytes.Equal(goNext, next) {
			page.Next = goNext
			mismatch = len(page.Children) - 1
		}
	}
	s.rowsRead.Add(read)
	if err := rows.Err(); err != nil {
		return ChildPage{}, -1, s.classify(err)
	}
	return page, mismatch, nil
}

// resolve gives the options' defaults for the encoded prefix p: the page
// size, the count bound, where the walk starts (past p's own row unless
// After says) and the end of p's range (nil for the root).
func (o ChildrenOptions) resolve(p []byte) (limit, bound int, pos, hi []byte) {
	limit, bound, pos = o.Limit, o.CountBound, o.After
	if limit <= 0 {
		limit = 100
	}
	if bound <= 0 {
		bound = DefaultCountBound
	}
	if len(p) > 0 {
		hi = codec.PrefixEnd(p)
	}
	if pos == nil {
		pos = append(append([]byte{}, p...), 0x00) // the first key after the prefix itself
	}
	return limit, bound, pos, hi
}

// countChildren fills in the bounded row counts of children in one statement.
func (s *Store) countChildren(ctx context.Context, children []Child, bound int) error {
	var cols []string
	var args []any
	var idx []int
	for i, c := range children {
		if c.Undecodable {
			continue
		}
		cols = append(cols, "(SELECT count(*) FROM (SELECT 1 FROM kv WHERE k >= ? AND k < ? LIMIT ?))")
		args = append(args, c.Raw, codec.PrefixEnd(c.Raw), bound+1)
		idx = append(idx, i)
	}
	if len(cols) == 0 {
		return nil
	}
	counts := make([]int64, len(cols))
	dest := make([]any, len(cols))
	for i := range counts {
		dest[i] = &counts[i]
	}
	found, err := s.queryRow(ctx, "SELECT "+strings.Join(cols, ", "), args, dest...)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("count children: no result row")
	}
	for j, i := range idx {
		children[i].Count, children[i].Capped = counts[j], false
		if counts[j] > int64(bound) {
			children[i].Count, children[i].Capped = int64(bound), true
		}
	}
	return nil
}

// countWindowed fills in the bounded row counts of children, each
// counted over its range a window of rows at a time (readWindowed:
// without locks on a rollback-journal file, the window as long as the
// file's writer leaves room for).
func (s *Store) countWindowed(ctx context.Context, children []Child, bound int) error {
	w := s.newReadWindow(windowChildren, or(s.knobs.windowRows, childCountWindow))
	for i := range children {
		c := &children[i]
		if c.Undecodable {
			continue
		}
		lo, hi := c.Raw, codec.PrefixEnd(c.Raw)
		var total int64
		for {
			var used int
			n, last, err := s.countWindow(ctx, w, func(size int) (string, []any) {
				used = size
				return "SELECT count(*), max(k) FROM (SELECT k FROM kv WHERE k >= ? AND k < ? ORDER BY k LIMIT ?)", []any{lo, hi, size}
			})
			if err != nil {
				return s.classify(err)
			}
			total += n
			if n < int64(used) || total > int64(bound) || last == nil {
				break
			}
			lo = append(bytes.Clone(last), 0x00)
		}
		c.Count, c.Capped = total, false
		if total > int64(bound) {
			c.Count, c.Capped = int64(bound), true
		}
	}
	return nil
}

// childCountWindow is the rows one statement of countWindowed counts at
// most.
const childCountWindow = 4096

// childOf builds the child whose first row is k.
func childOf(p, k []byte, exp *int64, count int64, bound int) Child {
	part, n, err := codec.DecodePart(k[len(p):])
	if err != nil {
		return Child{Raw: k, Undecodable: true, Count: 1, IsKey: true, ExpiresAt: exp}
	}
	childKey := k[:len(p)+n]
	c := Child{Part: part, Raw: childKey, IsKey: len(k) == len(childKey), Count: count}
	if c.IsKey {
		c.ExpiresAt = exp
	}
	if count > int64(bound) {
		c.Count, c.Capped = int64(bound), true
	}
	return c
}

// nextChildPos is where the child whose first row is k ends: past the
// child's whole range, or just past k for an undecodable row.
func nextChildPos(p, k []byte) []byte {
	_, n, err := codec.DecodePart(k[len(p):])
	if err != nil {
		return append(append([]byte{}, k...), 0x00)
	}
	return codec.PrefixEnd(k[:len(p)+n])
}

// childNextSQL is the SQL twin of nextChildPos for the key column col
// under a prefix of plen bytes: the part starts at byte plen+1 (substr
// counts from 1). A bytes or string payload ends at its first 0x00 that is
// not an escape (0x00 0xFF): in a well-formed key that 0x00 is followed by
// the next part's tag (0x01..0x05) or ends the key (a 0x00 after it is
// looked for too), and instr finds it
// (replace cannot: it ignores a pattern that starts with 0x00). Anything
// that does not parse as a part moves on by one row (k || 0x00), as Go does;
// where Go and this disagree (a malformed key), Children ends its page.
// The result is cast to a BLOB: || yields TEXT, SQLite orders every TEXT
// before every BLOB, and sqld refuses to send TEXT that is not UTF-8.
func childNextSQL(col string, plen int) string {
	t := plen + 1
	const none = 1 << 40
	r := fmt.Sprintf("substr(%s, %d)", col, t+1)
	var term strings.Builder
	term.WriteString("min(")
	for tag := 0; tag <= 5; tag++ {
		fmt.Fprintf(&term, "coalesce(nullif(instr(%s, x'000%d'), 0), %d), ", r, tag, none)
	}
	fmt.Fprintf(&term, "CASE WHEN substr(%[1]s, -1) = x'00' THEN length(%[1]s) ELSE %[2]d END)", r, none)
	return fmt.Sprintf("CAST(CASE"+
		" WHEN substr(%[5]s, %[1]d, 1) IN (x'03', x'04') AND length(%[5]s) >= %[2]d THEN substr(%[5]s, 1, %[2]d) || x'FF'"+
		" WHEN substr(%[5]s, %[1]d, 1) = x'05' AND length(%[5]s) >= %[3]d AND substr(%[5]s, %[3]d, 1) IN (x'00', x'01') THEN substr(%[5]s, 1, %[3]d) || x'FF'"+
		" WHEN substr(%[5]s, %[1]d, 1) IN (x'01', x'02') AND %[4]s < %[6]d THEN substr(%[5]s, 1, %[1]d + %[4]s) || x'FF'"+
		" ELSE %[5]s || x'00' END AS BLOB)", t, t+8, t+1, term.String(), col, none)
}

// childrenSQL is the skip-scan: walk holds each child's first row and the
// position past the child; the recursion seeks from there to the next
// child, limit+1 times at most; each of the first counted children (all
// limit of them, or none when the counts are read apart) gets its
// bounded count. The first row's expires_at is tagged on every transport
// (intSQL), so an odd TEXT there cannot fail the level over a server.
func childrenSQL(plen int, pos, hi []byte, limit, counted, bound int) (string, []any) {
	rng := "k >= %s"
	if hi != nil {
		rng += " AND k < ?"
	}
	first, args := fmt.Sprintf(rng, "?"), []any{pos}
	step := fmt.Sprintf(rng, "w.nx")
	if hi != nil {
		args = append(args, hi)
	}

	q := "WITH RECURSIVE w(n, k, e, nx) AS (" +
		"SELECT 1, k, expires_at, " + childNextSQL("k", plen) + " FROM (SELECT k, expires_at FROM kv WHERE " + first + " ORDER BY k LIMIT 1)" +
		" UNION ALL " +
		"SELECT w.n + 1, kv.k, kv.expires_at, " + childNextSQL("kv.k", plen) +
		" FROM w JOIN kv ON kv.k = (SELECT k FROM kv WHERE " + step + " ORDER BY k LIMIT 1) WHERE w.n <= ?)" +
		" SELECT k, " + tagTextSQL("e") + ", nx, CASE WHEN n <= ? THEN (SELECT count(*) FROM (SELECT 1 FROM kv WHERE k >= w.k AND k < w.nx LIMIT ?)) END FROM w ORDER BY n"
	if hi != nil {
		args = append(args, hi)
	}
	args = append(args, limit, counted, bound+1)
	return q, args
}
