package codec

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"
)

const (
	signBit  = uint64(1) << 63
	escByte  = 0xFF // follows a payload 0x00 to mark it as data, not terminator
	termByte = 0x00
)

// numberKey maps float64 bits to an unsigned integer whose order is the
// numeric order (with -0 just below +0): negatives are inverted so larger
// magnitudes sort first, non-negatives get the sign bit so they sort above.
func numberKey(bits uint64) uint64 {
	if bits&signBit != 0 {
		return ^bits
	}
	return bits | signBit
}

// numberBits inverts numberKey.
func numberBits(key uint64) uint64 {
	if key&signBit != 0 {
		return key &^ signBit
	}
	return ^key
}

// Encode returns the store encoding of k. It fails for a NaN number
// (ErrNaN), a string part that is not valid UTF-8 (ErrInvalidUTF8) and the
// zero Part (ErrInvalidTag); the error names the part's index.
func Encode(k Key) ([]byte, error) {
	b, err := AppendKey(make([]byte, 0, encodedLen(k)), k)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// MustEncode is Encode for keys known to be valid (tests, constants); it
// panics on error.
func MustEncode(k Key) []byte {
	b, err := Encode(k)
	if err != nil {
		panic(err)
	}
	return b
}

// AppendKey appends the encoding of k to dst, so callers building range
// bounds can reuse a buffer. On error dst is returned unchanged.
func AppendKey(dst []byte, k Key) ([]byte, error) {
	orig := len(dst)
	for i, p := range k {
		var err error
		if dst, err = appendPart(dst, p); err != nil {
			return dst[:orig], fmt.Errorf("codec: part %d: %w", i, err)
		}
	}
	return dst, nil
}

// EncodePart returns the encoding of a single part, which is the same as
// the encoding of the one-part key holding it.
func EncodePart(p Part) ([]byte, error) {
	b, err := appendPart(make([]byte, 0, partLen(p)), p)
	if err != nil {
		return nil, fmt.Errorf("codec: %w", err)
	}
	return b, nil
}

func appendPart(dst []byte, p Part) ([]byte, error) {
	switch p.kind {
	case KindString:
		if !utf8.ValidString(p.s) {
			return dst, ErrInvalidUTF8
		}
		fallthrough
	case KindBytes:
		dst = append(dst, byte(p.kind))
		for i := 0; i < len(p.s); i++ {
			dst = append(dst, p.s[i])
			if p.s[i] == 0 {
				dst = append(dst, escByte)
			}
		}
		return append(dst, termByte), nil
	case KindNumber:
		if math.IsNaN(math.Float64frombits(p.n)) {
			return dst, ErrNaN
		}
		dst = append(dst, byte(KindNumber))
		return binary.BigEndian.AppendUint64(dst, numberKey(p.n)), nil
	case KindBigint:
		dst = append(dst, byte(KindBigint))
		return binary.BigEndian.AppendUint64(dst, p.n^signBit), nil
	case KindBool:
		return append(dst, byte(KindBool), byte(p.n)), nil
	}
	return dst, fmt.Errorf("%w: part kind 0x%02x", ErrInvalidTag, uint8(p.kind))
}

func partLen(p Part) int {
	switch p.kind {
	case KindBytes, KindString:
		return 2 + len(p.s) // plus escapes, found while appending
	case KindNumber, KindBigint:
		return 9
	case KindBool:
	}
	return 2
}

func encodedLen(k Key) int {
	n := 0
	for _, p := range k {
		n += partLen(p)
	}
	return n
}

// PrefixEnd returns enc followed by 0xFF in a new slice: the exclusive end of
// the list range of the key prefix whose encoding is enc. Every tag is below
// 0xFF, so every key that has the prefix sorts below it.
func PrefixEnd(enc []byte) []byte {
	out := make([]byte, len(enc)+1)
	copy(out, enc)
	out[len(enc)] = 0xFF
	return out
}

// ChildSeek returns prefixEnc || enc(child) || 0xFF: the first key past
// every key that starts with prefix+child. A tree view seeks there to find
// the next distinct child of prefix without reading the rows under child.
func ChildSeek(prefixEnc []byte, child Part) ([]byte, error) {
	out := make([]byte, 0, len(prefixEnc)+partLen(child)+1)
	out = append(out, prefixEnc...)
	out, err := appendPart(out, child)
	if err != nil {
		return nil, fmt.Errorf("codec: child: %w", err)
	}
	return append(out, 0xFF), nil
}
