package store

import (
	"encoding/json"
	"reflect"
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
		out, err := decodePipeline(body, n)
		if err != nil {
			return
		}
		if len(out) != n {
			t.Fatalf("%d results for %d requests", len(out), n)
		}
		for _, r := range out {
			var results []*hranaStmtResult
			if r.Stmt != nil {
				results = append(results, r.Stmt)
			}
			if r.Batch != nil {
				results = append(results, r.Batch.StepResults...)
				_, _ = batchRowsOf(r.Batch, 1, 1)
			}
			for _, st := range results {
				if st == nil {
					continue
				}
				rows := &batchRows{rows: st.Rows, at: -1}
				for rows.Next() {
					dest := make([]any, len(st.Rows[rows.at]))
					for i := range dest {
						dest[i] = new(any)
					}
					_ = rows.Scan(dest...)
				}
			}
		}
	})
}

// FuzzRowScan: the row counts found in an answer do not depend on how it
// is cut into reads, and equal the decoded ones for sqld's answers.
func FuzzRowScan(f *testing.F) {
	for _, s := range pipelineSeeds {
		f.Add([]byte(s), uint8(7))
	}
	f.Fuzz(func(t *testing.T, body []byte, cut uint8) {
		whole := rowScan{name: `"rows_read":`}
		want := whole.scan(body)
		pieces := rowScan{name: `"rows_read":`}
		var got int64
		step := int(cut) + 1
		for i := 0; i < len(body); i += step {
			got += pieces.scan(body[i:min(i+step, len(body))])
		}
		// (A number at the very end counts in neither: it ends only at the
		// next byte, and an answer ends with its closing brace.)
		if got != want {
			t.Fatalf("in pieces of %d: %d, whole: %d", step, got, want)
		}
	})
}

// TestRowScanMatchesDecoded: on sqld's answers the scan finds the
// counts the decoder reads.
func TestRowScanMatchesDecoded(t *testing.T) {
	for i, s := range pipelineSeeds[:1] {
		out, err := decodePipeline([]byte(s), 3)
		if err != nil {
			t.Fatal(err)
		}
		var m meter
		for _, r := range out {
			m.rows(r)
		}
		read, written := rowScan{name: `"rows_read":`}, rowScan{name: `"rows_written":`}
		if r, w := read.scan([]byte(s)), written.scan([]byte(s)); r != m.read.Load() || w != m.written.Load() {
			t.Errorf("seed %d: scanned %d read %d written, decoded %d and %d", i, r, w, m.read.Load(), m.written.Load())
		}
	}
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
