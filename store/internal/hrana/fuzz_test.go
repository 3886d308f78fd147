package hrana

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// Answers sqld 0.24 gave (recorded with curl), the seeds of the fuzzers.
var pipelineSeeds = []string{
	`{"baton":null,"base_url":null,"results":[{"type":"ok","response":{"type":"execute","result":{"cols":[],"rows":[],"affected_row_count":0,"last_insert_rowid":null,"replication_index":"1","rows_read":1,"rows_written":2,"query_duration_ms":13.606}}},{"type":"ok","response":{"type":"batch","result":{"step_results":[{"cols":[],"rows":[],"affected_row_count":1,"last_insert_rowid":"1","replication_index":null,"rows_read":0,"rows_written":1,"query_duration_ms":0.353},{"cols":[{"name":"a","decltype":null}],"rows":[[{"type":"integer","value":"1"}]],"affected_row_count":0,"last_insert_rowid":null,"replication_index":null,"rows_read":1,"rows_written":0,"query_duration_ms":0.098}],"step_errors":[null,null],"replication_index":"2"}}},{"type":"ok","response":{"type":"close"}}]}`,
	`{"baton":null,"base_url":null,"results":[{"type":"error","error":{"message":"SQLite error: malformed JSON","code":"SQLITE_UNKNOWN"}},{"type":"ok","response":{"type":"close"}}]}`,
	`{"results":[{"type":"ok","response":{"type":"execute","result":{"rows":[[{"type":"blob","base64":"AAE="},{"type":"float","value":1.5},{"type":"text","value":"x"},{"type":"null"}]],"rows_read":3}}}]}`,
	`{"results":[{"type":"ok","response":{"type":"batch","result":{"step_results":[null,{"rows":[]}],"step_errors":[{"message":"database is locked"},null]}}}]}`,
}

// FuzzDecodePipeline: no answer makes the decoder (or reading the rows
// it returns) panic, and an answer it accepts has one result per request.
func FuzzDecodePipeline(f *testing.F) {
	for _, s := range pipelineSeeds {
		for n := 1; n <= 3; n++ {
			f.Add([]byte(s), n)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		if n < 0 || n > 8 {
			return
		}
		out, err := DecodePipeline(bytes.Clone(body), n) // it rewrites the answer
		if err != nil {
			return
		}
		if len(out) != n {
			t.Fatalf("%d results for %d requests", len(out), n)
		}
		for _, r := range out {
			var results []*StmtResult
			if r.Stmt != nil {
				results = append(results, r.Stmt)
			}
			if r.Batch != nil {
				results = append(results, r.Batch.StepResults...)
				_, _ = Committed(r.Batch, 1, 1)
			}
			for _, st := range results {
				if st == nil {
					continue
				}
				for _, row := range st.Rows {
					for _, v := range row {
						_, _ = v.Native()
					}
				}
			}
		}
	})
}

// FuzzRowLine: every cursor line the fast decoder accepts decodes to the
// same row with encoding/json.
func FuzzRowLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"row","row":[{"type":"integer","value":"1"}]}`,
		`{"type":"row","row":[{"type":"blob","base64":"AAE"},{"type":"text","value":"x y"},{"type":"float","value":-1.5e3},{"type":"null"}]}` + "\n",
		`{"type":"row","row":[{"value":"2","type":"integer"},{"type":"text","value":"a\"b"}]}`,
		`{"type":"row","row":[]}`,
		`{"type":"step_end","affected_row_count":0,"last_insert_rowid":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		row, ok := decodeRowLine(line)
		if !ok {
			return
		}
		var e cursorEntry
		if err := json.Unmarshal(line, &e); err != nil || e.Type != "row" {
			t.Fatalf("fast decoder took %q; encoding/json: %v %q", line, err, e.Type)
		}
		if len(row) != len(e.Row) || (len(row) > 0 && !reflect.DeepEqual(row, e.Row)) {
			t.Fatalf("%q: fast %#v, encoding/json %#v", line, row, e.Row)
		}
	})
}

// cursorSeeds are cursor answers: sqld 0.24.32's (recorded with curl),
// and ones cut or ended by an error in the middle.
var cursorSeeds = []string{
	`{"baton":"b","base_url":null}
{"type":"step_begin","step":0,"cols":[{"name":"k","decltype":"BLOB"},{"name":"v","decltype":null},{"name":"ver","decltype":null},{"name":"expires_at","decltype":null}]}
{"type":"row","row":[{"type":"blob","base64":"AmEA"},{"type":"blob","base64":"MQ"},{"type":"integer","value":"3"},{"type":"null"}]}
{"type":"row","row":[{"type":"blob","base64":"AmIA"},{"type":"text","value":"\"x\""},{"type":"integer","value":"4"},{"type":"integer","value":"17"}]}
{"type":"step_end","affected_row_count":0,"last_insert_rowid":null}
{"type":"replication_index","replication_index":4216}
`,
	`{"baton":"b","base_url":null}
{"type":"step_begin","step":0,"cols":[]}
{"type":"row","row":[{"type":"blob","base64":"AmEA"},{"type":"blob","base64":"MQ"},{"type":"integer","value":"3"},{"type":"null"}]}
{"type":"step_error","step":0,"error":{"message":"SQLite error: interrupted","code":"SQLITE_INTERRUPT"}}
`,
	`{"baton":"b","base_url":null}
{"type":"step_begin","step":0,"cols":[]}
{"type":"row","row":[{"type":"blob","base64":"AmEA"},{"type":"blob","base64":"MQ"},{"type":"integer","value":"3"},{"type":"null"}]}
{"type":"error","error":{"message":"stream expired"}}
`,
	`{"baton":"b","base_url":null}
{"type":"step_begin","step":0,"cols":[]}
{"type":"row","row":[{"type":"blob","base64":"AmEA"},{"type":"blob","base64":"MQ"},{"type":"integer","value":"3"},{"type":"null"}]}
`,
}

// readStream decodes a whole cursor answer of one step: its rows' keys,
// and the error that ended it (nil when it was complete).
func readStream(body string) (keys []string, err error) {
	d := NewDecoder(strings.NewReader(body), 1, -1)
	for {
		row, _, err := d.Next()
		if errors.Is(err, io.EOF) {
			return keys, nil
		}
		if err != nil {
			return keys, err
		}
		var k any
		if len(row) > 0 {
			k, _ = row[0].Native()
		}
		keys = append(keys, fmt.Sprint(k))
	}
}

// TestCursorDecoderEnds: a cursor's answer is complete only once its
// last step ended; a step's or the batch's error after rows, and an
// answer that stops before the step ended, are errors, after the rows
// that came before them.
func TestCursorDecoderEnds(t *testing.T) {
	for i, want := range []string{"", "SQLite error: interrupted", "stream expired", errBrokenOff.Error()} {
		keys, err := readStream(cursorSeeds[i])
		got := ""
		if err != nil {
			got = err.Error()
		}
		// "[2 97 0]": the first key, 02 61 00, as fmt prints a []byte.
		if got != want || len(keys) == 0 || keys[0] != "[2 97 0]" {
			t.Errorf("answer %d: rows %q, error %q; want the rows, then %q", i, keys, got, want)
		}
	}
	if _, err := readStream("<html>502 Bad Gateway</html>\n"); err == nil || !strings.Contains(err.Error(), "not a Hrana cursor") {
		t.Errorf("an answer that is no cursor's: %v", err)
	}
}

// FuzzCursorStream: no answer makes the cursor's decoder panic or loop;
// one it reads as complete ended its step, and every row it hands over
// is a row line of the answer.
func FuzzCursorStream(f *testing.F) {
	for _, s := range cursorSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		keys, err := readStream(string(body))
		if len(keys) > bytes.Count(body, []byte("\n"))+1 {
			t.Fatalf("%d rows from %d lines", len(keys), bytes.Count(body, []byte("\n"))+1)
		}
		if err == nil && !bytes.Contains(body, []byte("step_end")) {
			t.Fatalf("complete without a step's end: %q", body)
		}
	})
}

// rowsSeeds are answers of entry reads as sqld writes them (rows long
// enough to be taken out), and ones extractRows must leave to
// encoding/json.
var rowsSeeds = []string{
	`{"baton":null,"base_url":null,"results":[{"type":"ok","response":{"type":"execute","result":{"cols":[{"name":"k","decltype":"BLOB"}],"rows":[[{"type":"blob","base64":"AmEA"},{"type":"blob","base64":"eyJuIjoxfQ"},{"type":"integer","value":"3"},{"type":"null"}],[{"type":"blob","base64":"AmIA"},{"type":"blob","base64":"MQ=="},{"type":"integer","value":"4"},{"type":"integer","value":"17"}]],"affected_row_count":0,"last_insert_rowid":null,"replication_index":"5","rows_read":2,"rows_written":0,"query_duration_ms":0.1}}},{"type":"ok","response":{"type":"close"}}]}`,
	`{"results":[{"type":"ok","response":{"type":"execute","result":{"rows":[[{"type":"text","value":"a\"b"},{"type":"float","value":-1.5e3},{"value":"2","type":"integer"}],[{"type":"text","value":"#kvdeck-rows-0"}]]}}}]}`,
	`{"results":[{"type":"ok","response":{"type":"batch","result":{"step_results":[{"rows":[[{"type":"integer","value":"1"},{"type":"integer","value":"2"},{"type":"integer","value":"3"}]]},null,{"rows":[[{"type":"blob","base64":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}]]}],"step_errors":[null,{"message":"x"},null]}}}]}`,
}

// FuzzExtractedRows: an answer read with its rows arrays taken out
// (extractRows) gives the rows encoding/json alone gives, value for value,
// whenever encoding/json reads it.
func FuzzExtractedRows(f *testing.F) {
	for _, s := range append(append([]string{}, pipelineSeeds...), rowsSeeds...) {
		f.Add([]byte(s), 1)
		f.Add([]byte(s), 2)
	}
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		if n < 1 || n > 4 {
			return
		}
		want, err := decodePipelineText(bytes.Clone(body), n)
		if err != nil {
			return
		}
		got, err := DecodePipeline(bytes.Clone(body), n)
		if err != nil {
			t.Fatalf("encoding/json read %q; with extraction: %v", body, err)
		}
		if a, b := rowsText(t, want), rowsText(t, got); a != b {
			t.Fatalf("%q:\nencoding/json %s\nextracted     %s", body, a, b)
		}
	})
}

// rowsText is every value of every result's rows as Native reads it.
func rowsText(t *testing.T, out []Result) string {
	t.Helper()
	var b strings.Builder
	for _, r := range out {
		for _, st := range r.stmtResults() {
			if st == nil {
				b.WriteString("none;")
				continue
			}
			for _, row := range st.Rows {
				for _, v := range row {
					x, err := v.Native()
					fmt.Fprintf(&b, "%T %v %v,", x, x, err != nil)
				}
				b.WriteString("|")
			}
			b.WriteString(";")
		}
	}
	return b.String()
}
