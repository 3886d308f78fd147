package store

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"testing/iotest"
)

// FuzzStmtResult: a statement's result decodes to the same rows, cell by
// cell as the engine reads them (fromHrana), and the same counts through
// wireValue (blobs decoded at once) as through plain hranaValues, and
// fails where that fails.
func FuzzStmtResult(f *testing.F) {
	for _, s := range []string{
		`{"cols":[],"rows":[[{"type":"blob","base64":"AAE="},{"type":"float","value":1.5},{"type":"text","value":"x"},{"type":"null"}]],"rows_read":3,"rows_written":1}`,
		`{"rows":[[{"type":"blob","base64":"AAE"},{"base64":"AAE","type":"blob"},{"type":"blob","base64":""},{"type":"blob"}]]}`,
		`{"rows":[[{"type":"blob","base64":"A=B"},{"type":"blob","base64":"AAE\u003d"},{"type":"integer","value":"7"}],[],null]}`,
		`{"rows":null}`,
		`{"rows":[[5]]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var want struct {
			Rows        [][]hranaValue `json:"rows"`
			RowsRead    int64          `json:"rows_read"`
			RowsWritten int64          `json:"rows_written"`
		}
		wantErr := json.Unmarshal(body, &want)
		var got hranaStmtResult
		gotErr := json.Unmarshal(body, &got)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("plain decoding: %v; through wireValue: %v", wantErr, gotErr)
		}
		if wantErr != nil {
			return
		}
		if got.RowsRead != want.RowsRead || got.RowsWritten != want.RowsWritten || len(got.Rows) != len(want.Rows) || (got.Rows == nil) != (want.Rows == nil) {
			t.Fatalf("got %+v, want %+v", got, want)
		}
		for i, row := range want.Rows {
			if len(got.Rows[i]) != len(row) || (got.Rows[i] == nil) != (row == nil) {
				t.Fatalf("row %d: got %+v, want %+v", i, got.Rows[i], row)
			}
			for j, cell := range row {
				wv, werr := fromHrana(cell)
				gv, gerr := fromHrana(got.Rows[i][j])
				if !reflect.DeepEqual(wv, gv) || (werr == nil) != (gerr == nil) {
					t.Fatalf("row %d cell %d: got %#v (%v), want %#v (%v)", i, j, gv, gerr, wv, werr)
				}
			}
		}
	})
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

// TestAssignConverts: the rows of a server's answer land in every
// destination the engine scans into as database/sql would put them.
func TestAssignConverts(t *testing.T) {
	var (
		i   int
		i64 int64
		ok  bool
		f   float64
		str string
		raw []byte
		col bytesCol
	)
	blob := []byte("ab")
	for _, c := range []struct {
		dest, v, want any
	}{
		{&i, int64(7), 7},
		{&i, "12", 12},
		{&i, float64(3), 3},
		{&i64, float64(3), int64(3)},
		{&ok, int64(1), true},
		{&ok, int64(0), false},
		{&f, int64(2), 2.0},
		{&str, []byte("xy"), "xy"},
		{&str, int64(-4), "-4"},
		{&raw, "t", []byte("t")},
		{&col, blob, bytesCol{b: blob}},
		{&col, nil, bytesCol{null: true}},
	} {
		if err := assign(c.dest, c.v); err != nil {
			t.Errorf("%T from %#v: %v", c.dest, c.v, err)
			continue
		}
		if got := reflect.ValueOf(c.dest).Elem().Interface(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%T from %#v: %#v, want %#v", c.dest, c.v, got, c.want)
		}
	}
	for _, c := range []struct{ dest, v any }{{&i, float64(1.5)}, {&i, nil}, {&ok, int64(2)}, {&i64, "x"}, {new(struct{}), int64(1)}} {
		if err := assign(c.dest, c.v); err == nil {
			t.Errorf("%T from %#v: no error", c.dest, c.v)
		}
	}
}
