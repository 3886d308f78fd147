package widgets

import (
	"bytes"
	"encoding/json"
	"strings"

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
			out = append(out, Span{l[i : i+1], st.JSONPunct})
			i++
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
