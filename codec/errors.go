package codec

import (
	"errors"
	"fmt"
)

// The sentinel errors below are the stable part of every error this package
// returns: callers branch on them with errors.Is, while the wrapping error
// carries the position and the details a person needs to fix the input.
var (
	// ErrTruncated reports encoded key bytes that end inside a part: a tag
	// without its payload, a short number/bigint/boolean payload, or a
	// bytes/string payload without its 0x00 terminator.
	ErrTruncated = errors.New("truncated key encoding")

	// ErrMissingTerminator reports a bytes or string payload that runs to the
	// end of the input without a 0x00 terminator. The reference calls this
	// "truncated", so every error that matches ErrMissingTerminator also
	// matches ErrTruncated.
	ErrMissingTerminator = fmt.Errorf("%w: missing 0x00 terminator", ErrTruncated)

	// ErrInvalidTag reports a byte where a part starts that is not one of
	// the five tags (0x01..0x05), or a Part whose Kind is not one of them.
	ErrInvalidTag = errors.New("invalid key encoding tag")

	// ErrInvalidBool reports a boolean payload byte other than 0x00 or 0x01.
	// The reference reads any non-0x01 byte as false; kvdeck treats it as
	// corruption because such a key could never have been written by it.
	ErrInvalidBool = errors.New("invalid boolean byte")

	// ErrInvalidUTF8 reports a string part that is not valid UTF-8 (in a
	// Part, in encoded bytes, or a lone surrogate escape in key text).
	ErrInvalidUTF8 = errors.New("string part is not valid UTF-8")

	// ErrNaN reports a NaN number part. NaN has no place in the key order,
	// so the reference refuses it and so does kvdeck, in every direction.
	ErrNaN = errors.New("NaN is not a valid key number")

	// ErrBigintRange reports a bigint outside the signed 64-bit range, which
	// the encoding cannot carry.
	ErrBigintRange = errors.New("bigint out of signed 64-bit range")

	// ErrSyntax reports key text or tagged JSON that does not parse. Every
	// error returned by Parse, UnmarshalTagged and Key.UnmarshalJSON matches
	// it, including those that also match ErrNaN, ErrBigintRange or
	// ErrInvalidUTF8.
	ErrSyntax = errors.New("invalid key syntax")

	// ErrBadStamp reports a versionstamp that is not exactly 20 decimal
	// digits with a value of at least 1.
	ErrBadStamp = errors.New("invalid versionstamp")

	// ErrInvalidJSON reports text that JSON.parse would reject.
	ErrInvalidJSON = errors.New("invalid JSON")
)

// DecodeError is returned by Decode and DecodePart. It names the byte offset
// of the problem so a row with a corrupt key can be shown with a pointer into
// its hex dump; Unwrap yields the sentinel (ErrTruncated, ErrInvalidTag, ...).
type DecodeError struct {
	Offset int    // byte offset into the input where the problem was found
	Err    error  // the sentinel
	Detail string // what was expected, for people
}

// Error formats the error as "codec: <sentinel> at byte N: <detail>".
func (e *DecodeError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("codec: %v at byte %d", e.Err, e.Offset)
	}
	return fmt.Sprintf("codec: %v at byte %d: %s", e.Err, e.Offset, e.Detail)
}

// Unwrap returns the sentinel so errors.Is works.
func (e *DecodeError) Unwrap() error { return e.Err }

// SyntaxError is returned for key text and tagged JSON that does not parse.
// Column counts characters (runes) from 1, because that is what a person
// sees in the line they typed; Line matters only for multi-line input.
type SyntaxError struct {
	Line   int    // 1-based line of the problem
	Column int    // 1-based character column of the problem within its line
	Err    error  // ErrSyntax, or a more specific sentinel (ErrNaN, ...)
	Msg    string // what was expected and what was found
}

// Error formats the error as "codec: column N: <msg>", with the line
// ("line L, column N") when the problem is past the first line.
func (e *SyntaxError) Error() string {
	if e.Line > 1 {
		return fmt.Sprintf("codec: line %d, column %d: %s", e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("codec: column %d: %s", e.Column, e.Msg)
}

// Unwrap returns ErrSyntax and, when different, the specific sentinel, so
// errors.Is(err, ErrSyntax) holds for every parse failure.
func (e *SyntaxError) Unwrap() []error {
	if e.Err == nil || e.Err == ErrSyntax { //nolint:errorlint // identity: Err is the sentinel itself, not one wrapping it
		return []error{ErrSyntax}
	}
	return []error{ErrSyntax, e.Err}
}
