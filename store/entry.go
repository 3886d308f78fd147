package store

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"kvdeck/codec"
)

// Entry is one physical row of the kv table, decoded as far as it decodes.
type Entry struct {
	// Raw is the encoded key exactly as stored.
	Raw []byte
	// Key is the decoded key; nil when KeyErr is set.
	Key codec.Key
	// KeyErr explains why Raw does not decode (a foreign or corrupt row).
	KeyErr error
	// Value is the v column: JSON text as the writer stored it.
	Value []byte
	// Ver is the versionstamp number.
	Ver int64
	// ExpiresAt is the expiry in epoch milliseconds, nil for none.
	ExpiresAt *int64
	// KeyNull: k is NULL (another program's schema without NOT NULL, or
	// the reference's, whose "k BLOB PRIMARY KEY" SQLite lets hold NULLs).
	// Raw is then nil and KeyErr is ErrNullKey. Only Dump reads such rows.
	KeyNull bool
	// ValueNull: v is NULL (Value is nil), which is no JSON.
	ValueNull bool
	// Malformed, when not empty, says which of ver and expires_at holds
	// something the reference never writes (a fractional REAL, TEXT, a
	// BLOB), e.g. `expires_at is REAL 1767312001000.5`. Ver and ExpiresAt
	// then hold what SQL's comparisons make of it (see verCol, expiryCol),
	// so that Live agrees with the reads. A whole REAL is read as the
	// integer it is and is not malformed.
	Malformed string
}

// ErrNullKey is Entry.KeyErr of a row whose k is NULL.
var ErrNullKey = errors.New("key is NULL")

// Versionstamp is Ver formatted as the reference's 20-digit stamp.
func (e Entry) Versionstamp() string { return codec.FormatStamp(e.Ver) }

// ValueValid reports whether Value is valid JSON (a foreign database may
// hold something else; it is shown raw and flagged, never trusted).
func (e Entry) ValueValid() bool { return json.Valid(e.Value) }

// Live reports whether the row is visible at now: expires_at IS NULL OR
// expires_at > now. A row whose expiry equals now is dead.
func (e Entry) Live(now int64) bool { return e.ExpiresAt == nil || *e.ExpiresAt > now }

// Decodable reports whether both key and value decode.
func (e Entry) Decodable() bool { return e.KeyErr == nil && e.ValueValid() }

// newEntry decodes a scanned row.
func newEntry(raw, value []byte, ver verCol, expires expiryCol) Entry {
	e := Entry{Raw: raw, Value: value, Ver: ver.n, ExpiresAt: expires.at}
	e.Key, e.KeyErr = codec.Decode(raw)
	if e.KeyErr != nil {
		e.Key = nil
	}
	switch {
	case ver.odd != "" && expires.odd != "":
		e.Malformed = "ver " + ver.odd + "; expires_at " + expires.odd
	case ver.odd != "":
		e.Malformed = "ver " + ver.odd
	case expires.odd != "":
		e.Malformed = "expires_at " + expires.odd
	}
	return e
}

// bytesCol is a scanned k or v: null tells a NULL from the empty key or
// an empty text. A v is read as stored (TEXT or BLOB bytes; a number
// another program stored, as its text, as database/sql would convert it).
type bytesCol struct {
	b    []byte
	null bool
}

// Scan implements sql.Scanner.
func (c *bytesCol) Scan(src any) error {
	*c = bytesCol{}
	c.b, c.null = colBytes(src)
	return nil
}

// colBytes is a column's bytes; null is true for NULL.
func colBytes(src any) (b []byte, null bool) {
	switch x := src.(type) {
	case nil:
		return nil, true
	case []byte:
		return append([]byte{}, x...), false
	case string:
		return []byte(x), false
	case int64:
		return strconv.AppendInt(nil, x, 10), false
	case float64:
		return strconv.AppendFloat(nil, x, 'g', -1, 64), false
	case bool:
		return strconv.AppendBool(nil, x), false
	default:
		return fmt.Appendf(nil, "%v", x), false
	}
}

// newEntryCols is newEntry over scanned k and v columns, NULLs included.
func newEntryCols(k, v bytesCol, ver verCol, expires expiryCol) Entry {
	e := newEntry(k.b, v.b, ver, expires)
	if k.null {
		e.Raw, e.Key, e.KeyErr, e.KeyNull = nil, nil, ErrNullKey, true
	}
	e.ValueNull = v.null
	return e
}

// The integer columns ver and expires_at are read through sql.Scanner
// types rather than int64: a foreign writer can leave a REAL, TEXT or BLOB
// there (SQLite's INTEGER affinity keeps whatever does not convert
// losslessly, and a table without column types keeps everything), and one
// such row must not fail a whole listing with a scan error.

// verCol is a scanned ver. A whole REAL is read as its integer; anything
// else that is not an integer reads as 0 (no check can name it: SQL's
// "ver = ?" never matches it) and odd says what it was.
type verCol struct {
	n   int64
	odd string
}

// Scan implements sql.Scanner.
func (c *verCol) Scan(src any) error {
	*c = verCol{}
	src = untagText(src)
	if f, ok := src.(float64); ok {
		if n, whole := wholeInt(f); whole {
			c.n = n
			return nil
		}
	}
	if n, ok := src.(int64); ok {
		c.n = n
		return nil
	}
	c.odd = describeOdd(src)
	return nil
}

// expiryCol is a scanned expires_at: at is nil for no expiry. Values the
// reference never writes are read as SQL compares them with an integer now
// (so Entry.Live agrees with the live-row rule "expires_at IS NULL OR
// expires_at > now" of every read and with sweeping "expires_at <= now"):
// a whole REAL is its integer; a fractional REAL x is ceil(x), since x >
// now exactly when ceil(x) > now for an integer now; TEXT and BLOB sort
// after every number in SQLite, so such a row never expires (nil); a REAL
// past the int64 range never expires when positive, and is long expired
// when negative.
type expiryCol struct {
	at  *int64
	odd string
}

// Scan implements sql.Scanner.
func (c *expiryCol) Scan(src any) error {
	*c = expiryCol{}
	src = untagText(src)
	switch x := src.(type) {
	case nil:
	case int64:
		c.at = &x
	case float64:
		if n, whole := wholeInt(x); whole {
			c.at = &n
			return nil
		}
		c.odd = describeOdd(src)
		switch up := math.Ceil(x); {
		case up >= math.MaxInt64: // 2^63: past every int64 now
			c.odd += " (never expires)"
		case up < math.MinInt64:
			n := int64(math.MinInt64)
			c.at = &n
		default:
			n := int64(up)
			c.at = &n
		}
	default:
		c.odd = describeOdd(src) + " (never expires: SQLite orders it after every number)"
	}
	return nil
}

// wholeInt returns f as an int64 when it is a whole number in range.
func wholeInt(f float64) (int64, bool) {
	if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, false
	}
	return int64(f), true
}

// textTag starts the text a server sends for a TEXT ver or expires_at
// (intSQL): the hex of its bytes behind this tag.
const textTag = "kvdeck-text:"

// intSQL selects the integer column col (ver or expires_at) so that any
// server can answer it. Another program may have left TEXT there whose
// bytes are not UTF-8; sqld must put a TEXT cell in a JSON string and
// fails the whole statement ("invalid utf-8 sequence"), so one such row
// broke every read of its range, as a TEXT value did (valueSQL). Over a
// server a TEXT cell therefore travels as textTag and the hex of its
// bytes, and untagText gives the scanners the text back; on a file it
// travels as it is.
func (s *Store) intSQL(col string) string {
	if s.conn.traits().textTagged {
		return tagTextSQL(col) + " AS " + col
	}
	return col
}

// tagTextSQL is the expression intSQL sends for col over a server.
func tagTextSQL(col string) string {
	return "CASE WHEN typeof(" + col + ") = 'text' THEN '" + textTag + "' || hex(" + col + ") ELSE " + col + " END"
}

// untagText undoes intSQL's tag: a tagged text is the TEXT it stands for.
// (A TEXT that is itself "kvdeck-text:" and hex digits on a file reads as
// what those digits spell: it only changes how an odd cell is described.)
func untagText(src any) any {
	if t, ok := src.(string); ok && strings.HasPrefix(t, textTag) {
		if b, err := hex.DecodeString(t[len(textTag):]); err == nil {
			return string(b)
		}
	}
	return src
}

// describeOdd names a column value the reference never writes, shortened
// and quoted so that it prints safely on one line.
func describeOdd(src any) string {
	const max = 40
	switch x := src.(type) {
	case nil:
		return "is NULL"
	case float64:
		return "is REAL " + strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		if len(x) > max {
			return "is TEXT " + strconv.QuoteToASCII(strings.ToValidUTF8(x[:max], "")) + "…"
		}
		return "is TEXT " + strconv.QuoteToASCII(x)
	case []byte:
		h := hex.EncodeToString(x)
		if len(h) > max {
			h = h[:max] + "…"
		}
		return "is BLOB x'" + h + "'"
	default:
		return fmt.Sprintf("has a value of type %T", src)
	}
}

// liveSQL is the reference's liveness rule; its one argument is now.
const liveSQL = "(expires_at IS NULL OR expires_at > ?)"
