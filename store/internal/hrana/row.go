package hrana

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
)

// decodeRowLine decodes a cursor's row line, {"type":"row","row":[...]}
// as sqld writes it, without encoding/json's reflection (which was most
// of a remote dump's client CPU). ok is false for any line outside the
// shape it knows (other members, another order, escapes it does not
// take): the caller then decodes the line with encoding/json, which
// gives the same row for every line this accepts (FuzzRowLine).
func decodeRowLine(line []byte) (row []Value, ok bool) {
	const head = `{"type":"row","row":[`
	p := bytes.TrimRight(line, " \r\n")
	if !bytes.HasPrefix(p, []byte(head)) || !bytes.HasSuffix(p, []byte("]}")) {
		return nil, false
	}
	p = p[len(head) : len(p)-2]
	for len(p) > 0 {
		var v Value
		if v, p, ok = decodeValue(p); !ok {
			return nil, false
		}
		row = append(row, v)
		if len(p) > 0 {
			if p[0] != ',' || len(p) == 1 {
				return nil, false
			}
			p = p[1:]
		}
	}
	return row, true
}

// decodeValue decodes one {"type":...,"value"|"base64":...} at the start
// of p and returns the rest.
func decodeValue(p []byte) (v Value, rest []byte, ok bool) {
	if len(p) < 2 || p[0] != '{' {
		return v, nil, false
	}
	p = p[1:]
	var seen uint8 // type, value, base64: a member twice is left to encoding/json
	for {
		key, r, ok := decodeString(p)
		if !ok || len(r) == 0 || r[0] != ':' {
			return v, nil, false
		}
		p = r[1:]
		var val any
		if val, p, ok = decodeScalar(p); !ok {
			return v, nil, false
		}
		bit := memberBit(key)
		if bit == 0 || seen&bit != 0 {
			return v, nil, false
		}
		seen |= bit
		s, isStr := val.(string)
		switch {
		case bit == 2:
			v.Value = val
		case !isStr:
			return v, nil, false
		case bit == 1:
			v.Type = s
		default:
			v.Base64 = &s
		}
		if len(p) == 0 {
			return v, nil, false
		}
		if p[0] == '}' {
			return v, p[1:], seen&1 != 0
		}
		if p[0] != ',' {
			return v, nil, false
		}
		p = p[1:]
	}
}

// decodeScalar decodes a string, a number or null.
func decodeScalar(p []byte) (val any, rest []byte, ok bool) {
	if len(p) == 0 {
		return nil, nil, false
	}
	switch c := p[0]; {
	case c == '"':
		return decodeString(p)
	case bytes.HasPrefix(p, []byte("null")):
		return nil, p[4:], true
	case c == '-' || c >= '0' && c <= '9':
		i := 1
		for i < len(p) && bytes.IndexByte([]byte("0123456789.eE+-"), p[i]) >= 0 {
			i++
		}
		if !json.Valid(p[:i]) {
			return nil, nil, false
		}
		f, err := strconv.ParseFloat(string(p[:i]), 64)
		if err != nil {
			return nil, nil, false
		}
		return f, p[i:], true
	}
	return nil, nil, false
}

// decodeString decodes a JSON string without escapes or controls (base64,
// digits, plain text); one with them is left to encoding/json.
func decodeString(p []byte) (s string, rest []byte, ok bool) {
	if len(p) == 0 || p[0] != '"' {
		return "", nil, false
	}
	for i := 1; i < len(p); i++ {
		switch c := p[i]; {
		case c == '"':
			return string(p[1:i]), p[i+1:], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return "", nil, false
		}
	}
	return "", nil, false
}

// memberBit is a value member's bit in decodeValue's seen (0: unknown).
func memberBit(key string) uint8 {
	switch key {
	case "type":
		return 1
	case "value":
		return 2
	case "base64":
		return 4
	}
	return 0
}

// blobCell decodes {"type":"blob","base64":"..."} at the start of p.
func blobCell(p []byte) (b, rest []byte, ok bool) {
	const head = `{"type":"blob","base64":"`
	if !bytes.HasPrefix(p, []byte(head)) {
		return nil, nil, false
	}
	p = p[len(head):]
	end := bytes.IndexByte(p, '"')
	if end < 0 || !bytes.HasPrefix(p[end:], []byte(`"}`)) {
		return nil, nil, false
	}
	for _, c := range p[:end] {
		if !isBase64(c) {
			return nil, nil, false
		}
	}
	src := bytes.TrimRight(p[:end], "=")
	b = make([]byte, base64.RawStdEncoding.DecodedLen(len(src)))
	n, err := base64.RawStdEncoding.Decode(b, src)
	if err != nil {
		return nil, nil, false
	}
	return b[:n], p[end+2:], true
}

// isBase64 reports whether c is of base64's standard alphabet or its pad.
func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}
