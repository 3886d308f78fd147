package store

import (
	"context"
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

// Children lists the distinct next key parts under prefix by skip-scanning:
// one indexed single-row seek per child (past each child's whole range), and
// one statement that counts every child's rows up to the bound. It never
// reads a whole range. Expired-but-unswept rows count (they are physically
// there).
func (s *Store) Children(ctx context.Context, prefix codec.Key, opts ChildrenOptions) (ChildPage, error) {
	p, err := codec.Encode(prefix)
	if err != nil {
		return ChildPage{}, err
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = 100
	}
	bound := opts.CountBound
	if bound <= 0 {
		bound = DefaultCountBound
	}
	var hi []byte
	if len(prefix) > 0 {
		hi = codec.PrefixEnd(p)
	}
	pos := opts.After
	if pos == nil {
		pos = append(append([]byte{}, p...), 0x00) // the first key after the prefix itself
	}
	var page ChildPage
	for len(page.Children) < limit {
		where, args := rangeWhere(pos, hi)
		var k []byte
		var exp expiryCol
		found, err := s.queryRow(ctx, "SELECT k, expires_at FROM kv WHERE "+where+" ORDER BY k LIMIT 1", args, &k, &exp)
		if err != nil {
			return ChildPage{}, err
		}
		if !found {
			pos = nil
			break
		}
		part, n, perr := codec.DecodePart(k[len(p):])
		if perr != nil {
			page.Children = append(page.Children, Child{Raw: k, Undecodable: true, Count: 1, IsKey: true, ExpiresAt: exp.at})
			pos = append(k, 0x00)
			continue
		}
		childKey := k[:len(p)+n]
		c := Child{Part: part, Raw: childKey, IsKey: len(k) == len(childKey)}
		if c.IsKey {
			c.ExpiresAt = exp.at
		}
		page.Children = append(page.Children, c)
		pos = codec.PrefixEnd(childKey)
	}
	if pos != nil && len(page.Children) == limit {
		page.Next = pos
	}
	if err := s.countChildren(ctx, page.Children, bound); err != nil {
		return ChildPage{}, err
	}
	return page, nil
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
		children[i].Count = counts[j]
		if counts[j] > int64(bound) {
			children[i].Count = int64(bound)
			children[i].Capped = true
		}
	}
	return nil
}
