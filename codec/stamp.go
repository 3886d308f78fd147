package codec

import (
	"fmt"
	"strconv"
)

// StampLen is the length of a versionstamp: the reference left-pads the
// store sequence number with zeros to 20 decimal digits.
const StampLen = 20

// FormatStamp returns the versionstamp of sequence number seq, zero-padded
// to 20 digits as the reference writes it, e.g. "00000000000000000042".
// Sequence numbers start at 1; a negative seq yields a string ParseStamp
// rejects.
func FormatStamp(seq int64) string { return string(AppendStamp(make([]byte, 0, StampLen), seq)) }

// AppendStamp appends FormatStamp(seq) to dst.
func AppendStamp(dst []byte, seq int64) []byte {
	if seq < 0 {
		return fmt.Appendf(dst, "%020d", seq)
	}
	var digits [StampLen]byte
	n := strconv.AppendInt(digits[:0], seq, 10)
	for i := len(n); i < StampLen; i++ {
		dst = append(dst, '0')
	}
	return append(dst, n...)
}

// ParseStamp reads a versionstamp. It accepts exactly 20 ASCII digits with a
// value of at least 1 (0 is the sequence of an empty store, never a stamp);
// a shorter number is refused rather than guessed at, since a stamp typed
// by hand is usually copied and a truncated copy should not match. Errors
// match ErrBadStamp.
func ParseStamp(s string) (int64, error) {
	if len(s) != StampLen || !allDigits(s) {
		return 0, fmt.Errorf("codec: %w %s: want exactly %d decimal digits, e.g. %s",
			ErrBadStamp, strconv.Quote(s), StampLen, FormatStamp(42))
	}
	seq, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("codec: %w %s: beyond the largest sequence number %d",
			ErrBadStamp, strconv.Quote(s), int64(1<<63-1))
	}
	if seq < 1 {
		return 0, fmt.Errorf("codec: %w %s: sequence numbers start at 1", ErrBadStamp, strconv.Quote(s))
	}
	return seq, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
