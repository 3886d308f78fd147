package dumpfile

import (
	"reflect"
	"testing"

	"kvdeck/codec"
)

// checkDumped fails unless parseDumped either declines line or reads the
// Record parseObject reads (which must accept it).
func checkDumped(t *testing.T, line []byte) (taken bool) {
	t.Helper()
	fast, ok := parseDumped(line, nil)
	if !ok {
		return false
	}
	slow, slowOK, err := parseObject(line, 1)
	if err != nil || !slowOK || !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%s:\nfast %#v\nslow %#v %v %v", line, fast, slow, slowOK, err)
	}
	return true
}

// TestParseDumpedTakesDumpLines: the lines dump writes for rows that
// decode read back through the fast path, as Parse reads them; odd rows
// (no key, a value that is not JSON or not UTF-8, a NULL, a malformed
// column), other shapes and malformed lines are left to Parse.
func TestParseDumpedTakesDumpLines(t *testing.T) {
	keys := [][]byte{
		codec.MustEncode(codec.Key{codec.String("bench"), codec.Bigint(7)}),
		codec.MustEncode(codec.Key{codec.String("users"), codec.String("ä\u202e\x1b\"hex\":\""), codec.Number(-0.5), codec.Bool(true), codec.Bytes([]byte{0, 255})}),
		codec.MustEncode(codec.Key{}),
	}
	values := []string{`{"n":1,"name":"item-1","tags":["a","b"]}`, `1`, `"\u0007 é \u2028"`,
		`{"a":1,"versionstamp":"00000000000000000001","expiresAt":5,"expired":true}`, `{"b":1.50,"a":2,"b":3}`}
	for _, k := range keys {
		for _, v := range values {
			for _, flags := range []uint8{0, 4} {
				line, err := AppendLine(nil, entryOf(k, []byte(v), 42, 1767312001000, flags), 1767312000000, true)
				if err != nil {
					t.Fatal(err)
				}
				if !checkDumped(t, line[:len(line)-1]) {
					t.Errorf("a dump line took the slow path: %s", line)
				}
			}
		}
	}
	slow := []string{
		`{"key":"[\"a\"]","value":1}`,
		`{"key":[{"type":"string","value":"a"}],"hex":"026100","value":1,"versionstamp":"00000000000000000001","expiresAt":null}`,
		`{"key":[{"type":"string","value":"a"}],"hex":"026100","value":1,"versionstamp":"00000000000000000000","expiresAt":null,"expired":false}`,
		`{"key":[{"type":"string","value":"a"}],"hex":"026100","value":1,"versionstamp":null,"expiresAt":1.0,"expired":false}`,
		`{"key":[{"type":"string","value":"a"}],"hex":"026200","value":1,"versionstamp":null,"expiresAt":null,"expired":false}`,
		`{"key":[{"type":"string","value":"a"}],"hex":"026100","value":{"a":,"versionstamp":null,"expiresAt":null,"expired":false}`,
		`{"key":[{"type":"string","value":"a"}],"hex":"026100","value":1,"versionstamp":null,"expiresAt":null,"expired":false,"error":"x"}`,
		`{"key":[{"type":"string","value":"a"}],"hex":"026100","value":1,"versionstamp":null,"expiresAt":null,"expired":false} `,
		`{"key":[{"type":"string","value":"a"}],"hex":"026100","value":1,"expired":false}`,
	}
	for _, line := range slow {
		if checkDumped(t, []byte(line)) {
			t.Errorf("took the fast path: %s", line)
		}
	}
	for _, flags := range []uint8{1, 2, 8} {
		line, _ := AppendLine(nil, entryOf(keys[0], []byte(`1`), 42, 5, flags), 10, true)
		if checkDumped(t, line[:len(line)-1]) {
			t.Errorf("an odd row took the fast path: %s", line)
		}
	}
	if line, _ := AppendLine(nil, entryOf([]byte{0xff}, []byte(`1`), 42, 5, 0), 10, true); checkDumped(t, line[:len(line)-1]) {
		t.Errorf("a row whose key does not decode took the fast path: %s", line)
	}
}

// FuzzParseDumped: whatever the line, the fast path reads what Parse's
// encoding/json path reads, or leaves the line to it.
func FuzzParseDumped(f *testing.F) {
	key := codec.MustEncode(codec.Key{codec.String("k"), codec.Number(1)})
	for _, v := range []string{`{"a":1}`, `"\u2028"`, `[1,{"b":[true,false,null]}]`, `1e400`, `"\ud800"`} {
		line, _ := AppendLine(nil, entryOf(key, []byte(v), 3, 5, 4), 7, true)
		f.Add(line[:len(line)-1])
	}
	f.Add([]byte(`{"key":[{"type":"string","value":"a"}],"hex":"026100","value":1,"versionstamp":"00000000000000000001","expiresAt":-0,"expired":false}`))
	f.Fuzz(func(t *testing.T, line []byte) { checkDumped(t, line) })
}
