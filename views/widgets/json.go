package widgets

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"kvdeck/themes"
)

// JSONLines pretty-prints a stored value (indent 2) and highlights it by
// token type. A value that is not JSON comes back as its raw text (made
// safe to print) with valid false, for the caller to flag.
func JSONLines(st themes.Styles, raw []byte) (lines []Line, valid bool) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		for _, l := range strings.Split(string(raw), "\n") {
			lines = append(lines, Line{{Sanitize(l), st.Text}})
		}
		return lines, false
	}
	for _, l := range strings.Split(buf.String(), "\n") {
		lines = append(lines, jsonTokens(st, l))
	}
	return lines, true
}

// JSONPrefixLines pretty-prints the first bytes of a JSON value (cut
// anywhere, so possibly not valid JSON) the way JSONLines prints a whole
// one, and highlights it; it stops after maxLines lines. It never fails: what
// is not JSON is indented as well as it goes and shown safe to print.
func JSONPrefixLines(st themes.Styles, prefix []byte, maxLines int) []Line {
	var out []Line
	var cur strings.Builder
	depth := 0
	newline := func() bool {
		out = append(out, jsonTokens(st, cur.String()))
		cur.Reset()
		cur.WriteString(strings.Repeat("  ", depth))
		return len(out) < maxLines
	}
	inString, escaped := false, false
	for i := 0; i < len(prefix); i++ {
		c := prefix[i]
		if inString {
			inString, escaped = stringByte(&cur, c, escaped)
			continue
		}
		switch c {
		case '"':
			inString = true
			cur.WriteByte(c)
		case ' ', '\t', '\n', '\r':
		case '{', '[':
			cur.WriteByte(c)
			if j := skipSpace(prefix, i+1); j < len(prefix) && (prefix[j] == '}' || prefix[j] == ']') {
				cur.WriteByte(prefix[j])
				i = j
				continue
			}
			depth++
			if !newline() {
				return out
			}
		case '}', ']':
			depth = max(depth-1, 0)
			if strings.TrimSpace(cur.String()) != "" && !newline() {
				return out
			}
			cur.Reset()
			cur.WriteString(strings.Repeat("  ", depth))
			cur.WriteByte(c)
		case ',':
			cur.WriteByte(c)
			if !newline() {
				return out
			}
		case ':':
			cur.WriteString(": ")
		default:
			cur.WriteByte(c)
		}
	}
	if strings.TrimSpace(cur.String()) != "" {
		out = append(out, jsonTokens(st, cur.String()))
	}
	return out
}

// stringByte writes byte c of a JSON string to cur (a raw line feed as
// \n: not JSON, but one line stays one line) and says whether the string
// goes on after it and whether the next byte is escaped.
func stringByte(cur *strings.Builder, c byte, escaped bool) (inString, nextEscaped bool) {
	inString = true
	switch {
	case escaped:
	case c == '\\':
		nextEscaped = true
	case c == '"':
		inString = false
	}
	if c == '\n' {
		cur.WriteString("\\n")
	} else {
		cur.WriteByte(c)
	}
	return inString, nextEscaped
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonTokens highlights one line of indented, valid JSON.
func jsonTokens(st themes.Styles, l string) Line {
	var out Line
	for i := 0; i < len(l); {
		c := l[i]
		switch {
		case c == ' ':
			j := i
			for j < len(l) && l[j] == ' ' {
				j++
			}
			out = append(out, Span{l[i:j], st.JSONPunct})
			i = j
		case c == '"':
			j := stringEnd(l, i)
			style := st.JSONString
			if rest := strings.TrimLeft(l[j:], " "); strings.HasPrefix(rest, ":") {
				style = st.JSONKey
			}
			out = append(out, Span{Sanitize(l[i:j]), style})
			i = j
		case c == 't' || c == 'f' || c == 'n':
			j := i
			for j < len(l) && l[j] >= 'a' && l[j] <= 'z' {
				j++
			}
			style := st.JSONBool
			if l[i:j] == "null" {
				style = st.JSONNull
			}
			out = append(out, Span{l[i:j], style})
			i = j
		case c == '-' || (c >= '0' && c <= '9'):
			j := i
			for j < len(l) && strings.IndexByte("+-.eE0123456789", l[j]) >= 0 {
				j++
			}
			out = append(out, Span{l[i:j], st.JSONNumber})
			i = j
		default:
			_, n := utf8.DecodeRuneInString(l[i:])
			out = append(out, Span{Sanitize(l[i : i+n]), st.JSONPunct})
			i += n
		}
	}
	return out
}

// stringEnd returns the index just past the JSON string starting at i.
func stringEnd(l string, i int) int {
	for j := i + 1; j < len(l); j++ {
		switch l[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(l)
}
