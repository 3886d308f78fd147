package journal

import (
	"encoding/hex"
	"encoding/json"
	"reflect"
	"testing"

	"kvdeck/store"
)

// FuzzAppendRows: a record's keys and rows, appended by formatLine
// itself, read back (checksum checked) as the record encoding/json would
// have written.
func FuzzAppendRows(f *testing.F) {
	f.Add("02ab", `{"a":"x\"y\\z"}`, "", "", int64(7), true, true)
	f.Add("", "\x00\x1f\x7f\u2028<>&é😀", "ff00", "k3v9x2mq", int64(-1), false, false)
	f.Add("k", "\xff\xfe bad", "", "", int64(0), true, false)
	f.Fuzz(func(t *testing.T, k, v, vx, of string, ver int64, hasV, hasKeys bool) {
		exp := ver * 3
		row := rowRec{K: k, VX: vx, Ver: ver, Exp: &exp, Of: of}
		if hasV {
			row.V = &v
		}
		r := record{T: recIntent, ID: "id", Imaged: true, Pre: []rowRec{row, {K: v, Ver: 1}}}
		if hasKeys {
			r.Keys = []string{k, v}
		}
		sameAsJSON(t, r)
		// The raw forms read back as the rows newRowRec makes of them.
		raw := store.RawRow{Key: []byte(k), Value: []byte(v), Ver: ver, ExpiresAt: &exp}
		r = record{T: recIntent, ID: "id", Imaged: true, Pre: []rowRec{newRowRec(raw)}}
		if hasKeys {
			r.Keys = []string{hex.EncodeToString([]byte(k))}
		}
		got := readLine(t, record{T: recIntent, ID: "id", Imaged: true, raw: rawRows{keys: [][]byte{[]byte(k)}, pre: []store.RawRow{raw}}})
		if !hasKeys {
			got.Keys = nil
		}
		if want := sameAsJSON(t, r); !reflect.DeepEqual(got, want) {
			t.Fatalf("raw rows read %+v\nwant %+v", got, want)
		}
	})
}

// sameAsJSON fails t unless r's line reads back as what encoding/json
// writes of r reads back as, and returns it.
func sameAsJSON(t *testing.T, r record) record {
	t.Helper()
	got := readLine(t, r)
	plain, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var want record
	if err := json.Unmarshal(plain, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("reads %+v\nwant  %+v", got, want)
	}
	return want
}

// readLine formats r and reads the line's body back (its checksum
// checked).
func readLine(t *testing.T, r record) record {
	t.Helper()
	line, err := formatLine(r)
	if err != nil {
		t.Fatal(err)
	}
	body, err := lineBody(line[:len(line)-1])
	if err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	var got record
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	return got
}
