package hrana

import (
	"bytes"
	"encoding/base64"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzExtractBlobs: an answer decodes to the same results, cell by cell
// as the engine reads them (Native), and the same counts with its
// blobs taken out first (extractBlobs) as without, and fails where that
// fails.
func FuzzExtractBlobs(f *testing.F) {
	long := strings.Repeat("QUJD", 40)
	for _, s := range append(pipelineSeeds,
		`{"results":[{"type":"ok","response":{"type":"execute","result":{"rows":[[{"type":"blob","base64":"`+long+`="},{"base64":"`+long+`","type":"blob"},{"type":"text","value":"\"base64\":\"`+long+`"}]]}}}]}`,
		`{"results":[{"type":"ok","response":{"type":"batch","result":{"step_results":[{"rows":[[{"type":"blob","base64":"`+long+`","base64":"AAE"}]]},{"rows":[[{"type":"text","base64":"`+long+`"},{"type":"blob","base64":"A=`+long+`"}]]}]}}}]}`,
		`{"results":[{"type":"ok","response":{"type":"execute","result":{"rows":[[{"type":"blob","base64":"#kvdeck-blob-0"},{"type":"blob","base64":"`+long+`"}]]}}}]}`,
		`{"results":[{"type":"ok","response":{"type":"execute","result":{"rows":[[{"type":"blob","base64":"`+long+`\u0041"}]]}}}],"x":"\\"}`,
		`{"results":[{"type":"ok","response":{"type":"execute","result":{"rows":[[{"type":"blob","base64":"`+long+"\n"+long+`"}]]}}}]}`,
		`{"results":[{"type":"ok","response":{"type":"execute","result":{"rows":[[{"type":"blob","base64":"`+long+"\r"+long+`"}]]}}}]}`,
	) {
		f.Add([]byte(s), 1)
	}
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		if n < 1 || n > 3 {
			return
		}
		want, wantErr := decodePipelineText(bytes.Clone(body), n)
		got, gotErr := DecodePipeline(bytes.Clone(body), n)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("without extraction: %v; with: %v", wantErr, gotErr)
		}
		if wantErr != nil {
			return
		}
		for i := range want {
			w, g := want[i].stmtResults(), got[i].stmtResults()
			if len(w) != len(g) || !reflect.DeepEqual(want[i].Error, got[i].Error) {
				t.Fatalf("result %d: got %+v, want %+v", i, got[i], want[i])
			}
			for k := range w {
				sameRows(t, g[k], w[k])
			}
		}
	})
}

// sameRows fails unless got and want read the same, cell by cell.
func sameRows(t *testing.T, got, want *StmtResult) {
	t.Helper()
	if (got == nil) != (want == nil) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if want == nil {
		return
	}
	if got.RowsRead != want.RowsRead || got.RowsWritten != want.RowsWritten || len(got.Rows) != len(want.Rows) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i, row := range want.Rows {
		if len(got.Rows[i]) != len(row) || (got.Rows[i] == nil) != (row == nil) {
			t.Fatalf("row %d: got %+v, want %+v", i, got.Rows[i], row)
		}
		for j, cell := range row {
			wv, werr := cell.Native()
			gv, gerr := got.Rows[i][j].Native()
			if !reflect.DeepEqual(wv, gv) || (werr == nil) != (gerr == nil) {
				t.Fatalf("row %d cell %d: got %#v (%v), want %#v (%v)", i, j, gv, gerr, wv, werr)
			}
		}
	}
}

// TestReadAnswer: an answer is read whole whatever its length, whether
// it is announced and how the reads are cut, into the buffer given when
// it fits.
func TestReadAnswer(t *testing.T) {
	for _, n := range []int{0, 1, 4095, 4096, 4097, 100_000, 1 << 20} {
		body := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
		for _, size := range []int64{-1, int64(n)} {
			buf := make([]byte, 7, 4096)
			got, err := readAnswer(iotest.HalfReader(bytes.NewReader(body)), buf, size)
			if err != nil || !bytes.Equal(got, body) {
				t.Fatalf("%d bytes (announced %d): read %d, %v", n, size, len(got), err)
			}
			if n < 4096 && &got[:1][0] != &buf[:1][0] {
				t.Errorf("%d bytes (announced %d): not read into the buffer given", n, size)
			}
		}
	}
	if _, err := readAnswer(iotest.ErrReader(iotest.ErrTimeout), nil, -1); err == nil {
		t.Error("a failed read returned no error")
	}
}

// TestExtractBlobs: a long blob's text leaves the answer for a mark, and
// its bytes come back in the value; a short one, one inside another
// string and an answer that holds a mark already stay as they are.
func TestExtractBlobs(t *testing.T) {
	value := bytes.Repeat([]byte{0, 1, 2, 0xff}, 100)
	text := base64.StdEncoding.EncodeToString(value)
	answer := `{"results":[{"type":"ok","response":{"type":"execute","result":{"rows":[[` +
		`{"type":"blob","base64":"` + text + `"},{"type":"blob","base64":"AAE"},{"type":"text","value":"\"base64\":\"` + text + `"}]]}}}]}`
	body, blobs := extractBlobs([]byte(answer))
	if len(blobs) != 1 || !bytes.Equal(blobs[0], value) || len(body) >= len(answer)-len(text)+len(text)/2 {
		t.Fatalf("%d blobs, %d bytes left of %d", len(blobs), len(body), len(answer))
	}
	out, err := DecodePipeline([]byte(answer), 1)
	if err != nil {
		t.Fatal(err)
	}
	var got [3]any
	if len(out[0].Stmt.Rows) != 1 || len(out[0].Stmt.Rows[0]) != 3 {
		t.Fatal("no row")
	}
	for i, v := range out[0].Stmt.Rows[0] {
		if got[i], err = v.Native(); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got[0].([]byte), value) || !bytes.Equal(got[1].([]byte), []byte{0, 1}) || got[2] != `"base64":"`+text {
		t.Fatalf("%.40q", got)
	}
	marked := strings.Replace(answer, "AAE", blobMark+"0", 1)
	if body, blobs := extractBlobs([]byte(marked)); blobs != nil || string(body) != marked {
		t.Fatalf("an answer holding a mark was rewritten: %d blobs", len(blobs))
	}
}
