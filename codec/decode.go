package codec

import (
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf8"
)

// Decode parses a whole encoded key. It is strict: it accepts exactly the
// byte strings Encode produces, so every key it returns re-encodes to b.
// Beyond the reference's checks (unknown tag, truncated payload, missing
// terminator) it also rejects a boolean byte other than 0x00/0x01, invalid
// UTF-8 in a string part and a number whose bits are NaN. Errors are
// *DecodeError values with the byte offset; it never panics.
func Decode(b []byte) (Key, error) {
	// Parts are gathered on the stack and copied once into a key of
	// their number: a capacity guessed from the length (up to 8 parts of
	// 32 bytes) cost a dump more than its keys' texts.
	var room [8]Part
	k := room[:0]
	for off := 0; off < len(b); {
		p, n, err := decodePart(b, off)
		if err != nil {
			return nil, err
		}
		k = append(k, p)
		off += n
	}
	return append(make(Key, 0, len(k)), k...), nil
}

// DecodePart decodes the first part of b and returns it with the number of
// bytes it used, so callers can walk a key part by part (e.g. to find the
// child part after a known prefix). Offsets in errors count from b[0].
func DecodePart(b []byte) (Part, int, error) {
	p, n, err := decodePart(b, 0)
	if err != nil {
		return Part{}, 0, err
	}
	return p, n, nil
}

// decodePart decodes the part starting at b[off]; it returns the length of
// the part, and errors carry absolute offsets into b.
func decodePart(b []byte, off int) (Part, int, error) {
	if off >= len(b) {
		return Part{}, 0, &DecodeError{Offset: off, Err: ErrTruncated, Detail: "expected a part, found end of input"}
	}
	tag := Kind(b[off])
	body := b[off+1:]
	switch tag {
	case KindBytes, KindString:
		payload, n, ok := unescape(body)
		if !ok {
			return Part{}, 0, &DecodeError{Offset: len(b), Err: ErrMissingTerminator,
				Detail: tag.String() + " part starting at byte " + strconv.Itoa(off) + " runs to the end of the input"}
		}
		if tag == KindString && !utf8.Valid(payload) {
			if bad := invalidUTF8At(payload); bad >= 0 {
				return Part{}, 0, &DecodeError{Offset: rawOffset(body, bad) + off + 1, Err: ErrInvalidUTF8,
					Detail: "string part starting at byte " + strconv.Itoa(off)}
			}
		}
		return Part{kind: tag, s: string(payload)}, 1 + n, nil
	case KindNumber, KindBigint:
		if len(body) < 8 {
			return Part{}, 0, &DecodeError{Offset: len(b), Err: ErrTruncated,
				Detail: tag.String() + " part starting at byte " + strconv.Itoa(off) + " has " + strconv.Itoa(len(body)) + " of 8 payload bytes"}
		}
		u := binary.BigEndian.Uint64(body)
		if tag == KindBigint {
			return Part{kind: KindBigint, n: u ^ signBit}, 9, nil
		}
		bits := numberBits(u)
		if math.IsNaN(math.Float64frombits(bits)) {
			return Part{}, 0, &DecodeError{Offset: off + 1, Err: ErrNaN, Detail: "number part decodes to NaN"}
		}
		return Part{kind: KindNumber, n: bits}, 9, nil
	case KindBool:
		if len(body) < 1 {
			return Part{}, 0, &DecodeError{Offset: len(b), Err: ErrTruncated,
				Detail: "boolean part starting at byte " + strconv.Itoa(off) + " has no payload byte"}
		}
		if body[0] > 1 {
			return Part{}, 0, &DecodeError{Offset: off + 1, Err: ErrInvalidBool,
				Detail: "want 0x00 or 0x01, found 0x" + hex2(body[0])}
		}
		return Part{kind: KindBool, n: uint64(body[0])}, 2, nil
	}
	return Part{}, 0, &DecodeError{Offset: off, Err: ErrInvalidTag,
		Detail: "found 0x" + hex2(byte(tag)) + ", want a tag 0x01..0x05"}
}

// unescape reads an escaped payload from the start of b: 0x00 0xFF is a
// data 0x00; 0x00 followed by anything else (or by the end) terminates. It
// returns the payload, the bytes used including the terminator, and false
// when the input ends before a terminator. The payload aliases b when it
// contains no escapes, which is the common case; callers copy it.
func unescape(b []byte) ([]byte, int, bool) {
	var out []byte // nil until the first escape
	start := 0
	for i := 0; i < len(b); i++ {
		if b[i] != 0 {
			continue
		}
		if i+1 < len(b) && b[i+1] == escByte {
			out = append(out, b[start:i+1]...)
			start = i + 2
			i++
			continue
		}
		if out == nil {
			return b[:i], i + 1, true
		}
		return append(out, b[start:i]...), i + 1, true
	}
	return nil, 0, false
}

// invalidUTF8At returns the index of the first byte of s that is not part
// of a valid UTF-8 sequence, or -1.
func invalidUTF8At(s []byte) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}

// rawOffset maps an index into the unescaped payload of body back to an
// index into body, by skipping the 0xFF of each escape before it.
func rawOffset(body []byte, idx int) int {
	raw := 0
	for i := 0; i < idx && raw < len(body); i++ {
		if body[raw] == 0 {
			raw++ // the 0xFF
		}
		raw++
	}
	return raw
}

func hex2(b byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&15]})
}
