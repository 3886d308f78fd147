package hrana

import (
	"bytes"
	"strconv"
	"strings"
)

// A remote scan's page is an answer of megabytes that is almost all its
// "rows" array, and encoding/json went over it five times (a validity
// scan and a skip for each nested decoding, then the decoding itself by
// reflection): 55% of a remote dump's client CPU. extractRows decodes
// each rows array in one pass first (decodeRows, for the shapes sqld
// writes; its blobs straight into bytes) and leaves in its place a
// one-cell row that names it; restoreRows puts the rows back in the
// results encoding/json decoded. An array it cannot read whole (a text
// cell with an escape, a member it does not know) stays for encoding/json
// (FuzzExtractedRows: the rows are the same either way). An answer that
// already holds the mark's text anywhere is left whole, so no answer can
// forge one.

// rowsMark begins the text of the cell left in place of a rows array;
// its index in the arrays taken out follows.
const rowsMark = "#kvdeck-rows-"

var rowsMember = []byte(`"rows":[`)

// extractRows rewrites answer in place (it only shrinks) and returns it
// with the rows arrays its marks name.
func extractRows(answer []byte) ([]byte, [][][]Value) {
	if !bytes.Contains(answer, rowsMember) || bytes.Contains(answer, []byte(rowsMark)) {
		return answer, nil
	}
	var arrays [][][]Value
	w, r := 0, 0
	for {
		i := bytes.Index(answer[r:], rowsMember)
		if i < 0 {
			break
		}
		open := r + i + len(rowsMember) - 1 // the array's [
		mark := `[[{"type":"text","value":"` + rowsMark + strconv.Itoa(len(arrays)) + `"}]]`
		rows, n, ok := decodeRows(answer[open:])
		if !ok || n <= len(mark) {
			w += copy(answer[w:], answer[r:open+1])
			r = open + 1
			continue
		}
		w += copy(answer[w:], answer[r:open])
		w += copy(answer[w:], mark)
		arrays = append(arrays, rows)
		r = open + n
	}
	w += copy(answer[w:], answer[r:])
	return answer[:w], arrays
}

// restoreRows gives each result of res whose rows are a mark the rows
// it names.
func restoreRows(res *Result, arrays [][][]Value) {
	if len(arrays) == 0 {
		return
	}
	for _, st := range res.stmtResults() {
		if st == nil || len(st.Rows) != 1 || len(st.Rows[0]) != 1 {
			continue
		}
		text, _ := st.Rows[0][0].Value.(string)
		if st.Rows[0][0].Type != "text" || !strings.HasPrefix(text, rowsMark) {
			continue
		}
		if n, err := strconv.Atoi(text[len(rowsMark):]); err == nil && n >= 0 && n < len(arrays) {
			st.Rows = arrays[n]
		}
	}
}

// stmtResults are the statement results of res: its statement's, or
// its batch's steps' (a step that did not run is nil).
func (res *Result) stmtResults() []*StmtResult {
	var out []*StmtResult
	if res.Stmt != nil {
		out = append(out, res.Stmt)
	}
	if res.Batch != nil {
		out = append(out, res.Batch.StepResults...)
	}
	return out
}

// decodeRows decodes the rows array at the start of p, [[cell, ...],
// ...], and returns its length; ok is false for anything it does not
// read whole.
func decodeRows(p []byte) (rows [][]Value, n int, ok bool) {
	if len(p) < 2 || p[0] != '[' {
		return nil, 0, false
	}
	rows, i := [][]Value{}, 1
	if p[i] == ']' {
		return rows, 2, true
	}
	for {
		if i >= len(p) || p[i] != '[' {
			return nil, 0, false
		}
		i++
		row := make([]Value, 0, 4)
		for i < len(p) && p[i] != ']' {
			if len(row) > 0 {
				if p[i] != ',' {
					return nil, 0, false
				}
				i++
			}
			v, rest, ok := decodeCell(p[i:])
			if !ok {
				return nil, 0, false
			}
			row = append(row, v)
			i = len(p) - len(rest)
		}
		if i >= len(p) {
			return nil, 0, false
		}
		rows = append(rows, row)
		i++ // the row's ]
		if i >= len(p) {
			return nil, 0, false
		}
		switch p[i] {
		case ']':
			return rows, i + 1, true
		case ',':
			i++
		default:
			return nil, 0, false
		}
	}
}

// decodeCell decodes one value at the start of p: a blob, an integer
// and a null as sqld writes them without decodeValue's generality (a
// blob straight into its bytes), any other value as decodeValue reads
// it.
func decodeCell(p []byte) (Value, []byte, bool) {
	const null, integer = `{"type":"null"}`, `{"type":"integer","value":"`
	switch {
	case bytes.HasPrefix(p, []byte(`{"type":"blob","base64":"`)):
		if b, rest, ok := blobCell(p); ok {
			return Value{Type: "blob", blob: b}, rest, true
		}
	case bytes.HasPrefix(p, []byte(null)):
		return Value{Type: "null"}, p[len(null):], true
	case bytes.HasPrefix(p, []byte(integer)):
		digits := p[len(integer):]
		end := 0
		for end < len(digits) && (digits[end] >= '0' && digits[end] <= '9' || digits[end] == '-') {
			end++
		}
		if bytes.HasPrefix(digits[end:], []byte(`"}`)) {
			return Value{Type: "integer", Value: string(digits[:end])}, digits[end+2:], true
		}
	}
	return decodeValue(p)
}
