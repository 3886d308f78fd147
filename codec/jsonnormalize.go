package codec

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
)

// normalizer writes JSON.stringify(JSON.parse(text)) as it reads text,
// without building the value: each object's members are written in input
// order and moved only when JSON.parse would order them otherwise (a
// duplicate key, an array-index key), which real documents seldom need.
type normalizer struct {
	r   jsonReader
	dst []byte
	// members holds the members written so far of every object being
	// read, innermost last: an object's own start at its base index.
	members []memberSpan
	scratch []byte
}

// memberSpan is one member "key":value written at dst[start:end].
type memberSpan struct {
	key        string // WTF-8
	start, end int
}

func (n *normalizer) value() *jsonError {
	if n.r.pos < len(n.r.s) {
		switch n.r.s[n.r.pos] {
		case '{':
			return n.object()
		case '[':
			n.dst = append(n.dst, '[')
			err := n.r.list(']', func(i int) *jsonError {
				if i > 0 {
					n.dst = append(n.dst, ',')
				}
				return n.value()
			})
			n.dst = append(n.dst, ']')
			return err
		}
	}
	v, err := n.r.scalar()
	if err == nil {
		n.dst = appendJSScalar(n.dst, v)
	}
	return err
}

func (n *normalizer) object() *jsonError {
	open, base := len(n.dst), len(n.members)
	n.dst = append(n.dst, '{')
	err := n.r.list('}', func(i int) *jsonError {
		key, _, _, err := n.r.key()
		if err != nil {
			return err
		}
		if i > 0 {
			n.dst = append(n.dst, ',')
		}
		start := len(n.dst)
		n.dst = append(appendQuoted(n.dst, key, quoteJSON), ':')
		err = n.value()
		n.members = append(n.members, memberSpan{key: key, start: start, end: len(n.dst)})
		return err
	})
	if err == nil {
		n.reorder(open+1, n.members[base:])
		n.dst = append(n.dst, '}')
	}
	n.members = n.members[:base]
	return err
}

// reorder rewrites the members written from dst[from:] in JSON.parse's
// order when it differs from the input's: one member per key, with the
// last value, at the key's first position, array-index keys first in
// numeric order.
func (n *normalizer) reorder(from int, members []memberSpan) {
	order := propertyOrder(members)
	if order == nil {
		return
	}
	n.scratch = append(n.scratch[:0], n.dst[from:]...)
	n.dst = n.dst[:from]
	for i, m := range order {
		if i > 0 {
			n.dst = append(n.dst, ',')
		}
		n.dst = append(n.dst, n.scratch[m.start-from:m.end-from]...)
	}
}

// propertyOrder returns the members in JSON.parse's order, or nil when
// that is the input's order (no duplicate key, no array-index key).
func propertyOrder(members []memberSpan) []memberSpan {
	dup, index := false, false
	var seen map[string]bool
	if len(members) > 16 { // small objects: a linear scan beats a map
		seen = make(map[string]bool, len(members))
	}
	for i, m := range members {
		if _, ok := arrayIndex(m.key); ok {
			index = true
		}
		if seen != nil {
			dup = dup || seen[m.key]
			seen[m.key] = true
			continue
		}
		for _, o := range members[:i] {
			dup = dup || o.key == m.key
		}
	}
	if !dup && !index {
		return nil
	}
	out := make([]memberSpan, 0, len(members))
	at := make(map[string]int, len(members))
	for _, m := range members {
		if i, ok := at[m.key]; ok {
			out[i] = m // the last value, at the first position
			continue
		}
		at[m.key] = len(out)
		out = append(out, m)
	}
	// A stable sort keeps the insertion order of the non-index keys.
	slices.SortStableFunc(out, func(a, b memberSpan) int {
		ai, aok := arrayIndex(a.key)
		bi, bok := arrayIndex(b.key)
		switch {
		case aok && bok:
			return cmp.Compare(ai, bi)
		case aok:
			return -1
		case bok:
			return 1
		}
		return 0
	})
	return out
}

// appendJSScalar writes a string, number, boolean or null as
// JSON.stringify does (a number beyond float64's range is null).
func appendJSScalar(dst []byte, v jsonValue) []byte {
	switch v.kind {
	case jsonNull:
		return append(dst, "null"...)
	case jsonBool:
		return strconv.AppendBool(dst, v.b)
	case jsonNumber:
		if plainInteger(v.raw) {
			return append(dst, v.raw...) // as JavaScript writes it back
		}
		if math.IsInf(v.num, 0) {
			return append(dst, "null"...)
		}
		return appendJSNumber(dst, v.num)
	case jsonString, jsonArray, jsonObject:
	}
	return appendQuoted(dst, v.str, quoteJSON)
}

// plainInteger reports whether a JSON number literal is an integer of at
// most 15 digits other than -0: exact in a float64, and written back by
// JavaScript digit for digit (JSON allows no leading zero).
func plainInteger(lit string) bool {
	digits := strings.TrimPrefix(lit, "-")
	if len(digits) == 0 || len(digits) > 15 || lit == "-0" {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if !isDigit(digits[i]) {
			return false
		}
	}
	return true
}

// normalize runs the normalizer over one complete JSON text.
func normalize(raw []byte) ([]byte, *jsonError) {
	n := normalizer{r: jsonReader{s: string(raw)}, dst: make([]byte, 0, len(raw))}
	n.r.skipWS()
	if err := n.value(); err != nil {
		return nil, err
	}
	n.r.skipWS()
	if n.r.pos < len(n.r.s) {
		return nil, n.r.fail("expected end of input")
	}
	return n.dst, nil
}
