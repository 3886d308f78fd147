package codec

import (
	"cmp"
	"fmt"
	"math"
	"strings"
)

// Kind is the type of one key part. Its values equal the tag bytes of the
// encoding, so the numeric order of kinds is the store's type order.
type Kind uint8

// The five part kinds, in store order.
const (
	KindBytes  Kind = 0x01 // Uint8Array
	KindString Kind = 0x02 // UTF-8 string
	KindNumber Kind = 0x03 // float64 (JavaScript number)
	KindBigint Kind = 0x04 // signed 64-bit integer (JavaScript bigint)
	KindBool   Kind = 0x05 // boolean
)

// String returns the kind's name as the reference's typeof would say it
// ("bytes" for Uint8Array), e.g. for type badges in the UI.
func (k Kind) String() string {
	switch k {
	case KindBytes:
		return "bytes"
	case KindString:
		return "string"
	case KindNumber:
		return "number"
	case KindBigint:
		return "bigint"
	case KindBool:
		return "boolean"
	}
	return fmt.Sprintf("Kind(0x%02x)", uint8(k))
}

// Part is one element of a key. It is an immutable value: constructors copy
// their input and accessors return copies, so a Part can be shared freely.
// Parts are comparable with ==, which agrees with Equal. The zero Part has no
// kind and does not encode.
type Part struct {
	kind Kind
	s    string // payload of bytes and string parts
	n    uint64 // float64 bits, int64 bits, or 0/1 for booleans
}

// Bytes returns a bytes (Uint8Array) part holding a copy of b.
func Bytes(b []byte) Part { return Part{kind: KindBytes, s: string(b)} }

// String returns a string part. Encode refuses s if it is not valid UTF-8.
func String(s string) Part { return Part{kind: KindString, s: s} }

// Number returns a number part. -0 and +0 are distinct parts, as they are
// distinct keys in the store; Encode refuses NaN.
func Number(f float64) Part { return Part{kind: KindNumber, n: math.Float64bits(f)} }

// Bigint returns a bigint part.
func Bigint(i int64) Part { return Part{kind: KindBigint, n: uint64(i)} }

// Bool returns a boolean part.
func Bool(b bool) Part {
	if b {
		return Part{kind: KindBool, n: 1}
	}
	return Part{kind: KindBool}
}

// Kind returns the part's kind (0 for the zero Part).
func (p Part) Kind() Kind { return p.kind }

// BytesValue returns a copy of the payload of a bytes part (or the UTF-8 of
// a string part); nil for other kinds.
func (p Part) BytesValue() []byte {
	if p.kind != KindBytes && p.kind != KindString {
		return nil
	}
	return []byte(p.s)
}

// StringValue returns the value of a string part; "" for other kinds.
func (p Part) StringValue() string {
	if p.kind != KindString {
		return ""
	}
	return p.s
}

// NumberValue returns the value of a number part; 0 for other kinds.
func (p Part) NumberValue() float64 {
	if p.kind != KindNumber {
		return 0
	}
	return math.Float64frombits(p.n)
}

// BigintValue returns the value of a bigint part; 0 for other kinds.
func (p Part) BigintValue() int64 {
	if p.kind != KindBigint {
		return 0
	}
	return int64(p.n)
}

// BoolValue returns the value of a boolean part; false for other kinds.
func (p Part) BoolValue() bool { return p.kind == KindBool && p.n == 1 }

// Equal reports whether p and q are the same key part: same kind and same
// encoding. Numbers compare by bits, so -0 and +0 differ (they are different
// keys in the store) and no NaN equals a different NaN.
func (p Part) Equal(q Part) bool { return p == q }

// Key is a store key: a sequence of parts. The empty key is valid and
// encodes to zero bytes.
type Key []Part

// Equal reports whether k and o have equal parts. A nil and an empty Key are
// equal: both are the empty key.
func (k Key) Equal(o Key) bool {
	if len(k) != len(o) {
		return false
	}
	for i := range k {
		if k[i] != o[i] {
			return false
		}
	}
	return true
}

// HasPrefix reports whether the first len(p) parts of k equal p. A key is a
// prefix of itself, matching the store's list rule, which returns the key
// equal to the prefix.
func (k Key) HasPrefix(p Key) bool {
	return len(p) <= len(k) && k[:len(p)].Equal(p)
}

// String returns the canonical key text, the same as Format(k).
func (k Key) String() string { return Format(k) }

// Compare orders keys exactly as the store does (memcmp of the encodings):
// part by part, kind first, then value; a key sorts before every key it is a
// prefix of. It returns -1, 0 or +1 and needs no allocation.
func Compare(a, b Key) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := comparePart(a[i], b[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

func comparePart(p, q Part) int {
	if p.kind != q.kind {
		return cmp.Compare(p.kind, q.kind)
	}
	switch p.kind {
	case KindBytes, KindString:
		// The escaping (0x00 -> 0x00 0xFF, terminator 0x00) preserves the
		// order of the raw payloads, and a payload that is a prefix of
		// another sorts first, because its terminator 0x00 is followed by a
		// tag or the end, both below the 0xFF of an escaped 0x00 and below
		// any other byte.
		return strings.Compare(p.s, q.s)
	case KindNumber:
		return cmp.Compare(numberKey(p.n), numberKey(q.n))
	case KindBigint:
		return cmp.Compare(int64(p.n), int64(q.n))
	case KindBool:
	}
	return cmp.Compare(p.n, q.n)
}
