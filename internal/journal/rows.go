package journal

import (
	"encoding/hex"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"kvdeck/store"
)

// A write's keys and rows are most of a large intent's bytes (a sweep's
// batch holds thousands of before-images), so formatLine appends them
// itself, without reflection: byte for byte what encoding/json decodes
// to the same record (FuzzAppendRows holds it to that), after the
// record's other fields.

// rawRows are an intent's keys and before-images as the write handed
// them over: formatLine appends them without making strings of them
// first (what Keys and Pre would hold: hex keys, values as text).
type rawRows struct {
	keys [][]byte
	pre  []store.RawRow
}

// appendRows appends r's keys and Pre rows (or their raw forms) to dst,
// which ends with the JSON object of the rest of r without its closing
// brace (after a field when sep), as its last fields, and closes it.
func appendRows(dst []byte, sep bool, r *record) []byte {
	if len(r.Keys) > 0 || len(r.raw.keys) > 0 {
		dst = appendField(dst, sep, "keys")
		for i, k := range r.Keys {
			dst = appendString(appendComma(dst, i), []byte(k))
		}
		for i, k := range r.raw.keys {
			dst = append(hex.AppendEncode(append(appendComma(dst, i), '"'), k), '"')
		}
		dst, sep = append(dst, ']'), true
	}
	if len(r.Pre) > 0 || len(r.raw.pre) > 0 {
		dst = appendField(dst, sep, "pre")
		for i := range r.Pre {
			dst = appendRowRec(appendComma(dst, i), &r.Pre[i])
		}
		for i := range r.raw.pre {
			dst = appendRawRow(appendComma(dst, i), &r.raw.pre[i])
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// rowsSize is about what appendRows adds, so that a batch's line is
// allocated once: the strings' bytes, a tenth more for escapes, and
// each row's names and numbers.
func rowsSize(r *record) int {
	n := 20
	for _, k := range r.Keys {
		n += len(k) + 3
	}
	for _, k := range r.raw.keys {
		n += 2*len(k) + 3
	}
	for i := range r.Pre {
		p := &r.Pre[i]
		n += len(p.K) + len(p.VX) + len(p.Of) + 64
		if p.V != nil {
			n += len(*p.V) + len(*p.V)/10
		}
	}
	for i := range r.raw.pre {
		p := &r.raw.pre[i]
		n += 2*len(p.Key) + 2*len(p.Value) + 64
	}
	return n
}

// appendField appends the name of an array field and its opening
// bracket, after a comma when sep.
func appendField(dst []byte, sep bool, name string) []byte {
	if sep {
		dst = append(dst, ',')
	}
	return append(append(append(dst, '"'), name...), `":[`...)
}

// appendComma appends the comma before an array's element i.
func appendComma(dst []byte, i int) []byte {
	if i > 0 {
		return append(dst, ',')
	}
	return dst
}

// appendRowRec appends r as encoding/json writes a rowRec: its fields in
// order, the omitempty ones only when set.
func appendRowRec(dst []byte, r *rowRec) []byte {
	dst = appendString(append(dst, `{"k":`...), []byte(r.K))
	if r.V != nil {
		dst = appendString(append(dst, `,"v":`...), []byte(*r.V))
	}
	if r.VX != "" {
		dst = appendString(append(dst, `,"vx":`...), []byte(r.VX))
	}
	return appendRowTail(dst, r.Ver, r.Exp, r.Of)
}

// appendRawRow appends row as appendRowRec appends newRowRec(row).
func appendRawRow(dst []byte, row *store.RawRow) []byte {
	dst = append(hex.AppendEncode(append(dst, `{"k":"`...), row.Key), '"')
	if utf8.Valid(row.Value) {
		dst = appendUTF8(append(dst, `,"v":`...), row.Value)
	} else {
		dst = append(hex.AppendEncode(append(dst, `,"vx":"`...), row.Value), '"')
	}
	return appendRowTail(dst, row.Ver, row.ExpiresAt, "")
}

// appendRowTail appends a row's stamp, expiry and reference, and closes it.
func appendRowTail(dst []byte, ver int64, exp *int64, of string) []byte {
	dst = strconv.AppendInt(append(dst, `,"ver":`...), ver, 10)
	if exp != nil {
		dst = strconv.AppendInt(append(dst, `,"exp":`...), *exp, 10)
	}
	if of != "" {
		dst = appendString(append(dst, `,"of":`...), []byte(of))
	}
	return append(dst, '}')
}

// appendString appends s as a JSON string. Printable ASCII but the quote
// and the backslash, and the runes of valid UTF-8 beyond ASCII, stand as
// they are; the quote, the backslash and control bytes are escaped. Text
// that is not valid UTF-8 takes encoding/json's way (it writes each bad
// byte as U+FFFD), so what it reads back is what encoding/json would have
// made of it.
func appendString(dst, s []byte) []byte {
	if !utf8.Valid(s) {
		b, _ := json.Marshal(string(s)) // a string always marshals
		return append(dst, b...)
	}
	return appendUTF8(dst, s)
}

// appendUTF8 is appendString of valid UTF-8.
func appendUTF8(dst, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i, c := range s {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, `\n`...)
		case '\r':
			dst = append(dst, `\r`...)
		case '\t':
			dst = append(dst, `\t`...)
		default:
			dst = append(dst, `\u00`...)
			dst = append(dst, hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	return append(append(dst, s[start:]...), '"')
}

const hexDigits = "0123456789abcdef"
