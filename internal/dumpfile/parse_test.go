package dumpfile

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"kvdeck/codec"
)

// parseCase is a line, whether it is a row, and the Record's fields
// (describe) or the error's text.
type parseCase struct {
	line string
	ok   bool
	want string
}

// TestParse: every shape of row a dump holds reads back as the row it
// was (key or raw bytes, JSON or raw value, NULLs, stamp, expiry, error);
// a blank line and the meta trailer are no row; a line that contradicts
// itself is refused naming the line and the field.
func TestParse(t *testing.T) {
	for _, tc := range []parseCase{
		{`{"key":[{"type":"string","value":"a"}],"hex":"026100","value":{"x":[1]},"versionstamp":"00000000000000000001","expiresAt":1767312000000,"expired":false}`,
			true, `key ["a"] raw 026100 value {"x":[1]} json stamp 00000000000000000001 expires 1767312000000`},
		{`{"key":"[\"a\"]","value":1}`, true, `key ["a"] raw 026100 value 1 json`},
		{`{"key":null,"hex":"ff01","value":1,"versionstamp":"00000000000000000001","expiresAt":null,"error":"key does not decode"}`,
			true, `raw ff01 value 1 json stamp 00000000000000000001 error key does not decode`},
		{`{"key":[],"hex":"","value":"not json","versionstamp":"00000000000000000002","error":"value is not valid JSON"}`,
			true, `key [] raw  value not json stamp 00000000000000000002 error value is not valid JSON`},
		{`{"key":null,"value":1,"versionstamp":"00000000000000000003","error":"key is NULL"}`, true, `null key value 1 json stamp 00000000000000000003 error key is NULL`},
		{`{"key":"[\"a\"]","value":null,"versionstamp":"00000000000000000004","error":"value is NULL"}`, true, `key ["a"] raw 026100 null value stamp 00000000000000000004 error value is NULL`},
		{`{"key":"[\"a\"]","hex":"026100","value":"\ufffd","valueHex":"ff","error":"value is not valid JSON"}`, true, `key ["a"] raw 026100 value ff error value is not valid JSON`},
		{`{"key":"[\"a\"]","value":1,"versionstamp":"00000000000000000000","malformed":"ver is TEXT \"x\""}`, true, `key ["a"] raw 026100 value 1 json`},
		{`{"meta":{"seq":63}}`, false, ``},
		{``, false, ``},
		{" \t\r", false, ``},
		{`{"meta":{"seq":63},"key":"[\"a\"]"}`, false, `a meta line carries nothing else`},
		{`{"key":"[\"a\"]","hex":"0262","value":1}`, false, `does not match the key, which encodes to 026100`},
		{`{"key":null,"value":1}`, false, `a row without a key needs the hex of its raw key`},
		{`{"key":"[\"a\"]","value":1,"versionstamp":"01"}`, false, `versionstamp`},
		{`{"key":"[\"a\"]","value":1,"shade":2}`, false, `shade`},
		{`[1]`, false, `line 7`},
	} {
		l, ok, err := Parse([]byte(tc.line), 7)
		got := describe(l)
		if err != nil {
			got = err.Error()
		}
		if ok != tc.ok || !strings.Contains(got, tc.want) || (err == nil && got != tc.want) {
			t.Errorf("%s:\n got %v %s\nwant %v %s", tc.line, ok, got, tc.ok, tc.want)
		}
	}
}

// describe is a Record's fields in a line.
func describe(l Record) string {
	var parts []string
	switch {
	case l.KeyNull:
		parts = append(parts, "null key")
	case l.Key != nil:
		parts = append(parts, "key "+codec.Format(l.Key))
	}
	if l.Raw != nil {
		parts = append(parts, fmt.Sprintf("raw %x", l.Raw))
	}
	switch {
	case l.ValueNull:
		parts = append(parts, "null value")
	case l.Valid:
		parts = append(parts, "value "+string(l.Value)+" json")
	case !utf8.Valid(l.Value):
		parts = append(parts, fmt.Sprintf("value %x", l.Value))
	case l.Value != nil:
		parts = append(parts, "value "+string(l.Value))
	}
	if l.Stamp != "" {
		parts = append(parts, "stamp "+l.Stamp)
	}
	if l.ExpiresAt != nil {
		parts = append(parts, fmt.Sprint("expires ", *l.ExpiresAt))
	}
	if l.Error != "" {
		parts = append(parts, "error "+l.Error)
	}
	return strings.Join(parts, " ")
}

// TestEachLine: lines come without their newline (a last line without
// one too), numbered from 1; a long line that is no JSON object is
// refused at its first bytes, naming its line; fn's error ends the read.
func TestEachLine(t *testing.T) {
	var got []string
	err := EachLine(strings.NewReader("{\"a\":1}\n\n{\"b\":2}\r\n{\"c\":3}"), func(line []byte, n int) error {
		got = append(got, fmt.Sprintf("%d:%q", n, line))
		return nil
	})
	if want := `1:"{\"a\":1}" 2:"" 3:"{\"b\":2}\r" 4:"{\"c\":3}"`; err != nil || strings.Join(got, " ") != want {
		t.Errorf("lines %s, %v; want %s", strings.Join(got, " "), err, want)
	}
	garbage := "{}\n" + strings.Repeat("x", 1<<20)
	err = EachLine(strings.NewReader(garbage), func([]byte, int) error { return nil })
	if err == nil || !strings.Contains(err.Error(), `line 2: not a JSON object: it starts with "x"`) {
		t.Errorf("a long line of garbage: %v", err)
	}
	stop := errors.New("stop")
	if err := EachLine(strings.NewReader("1\n2\n"), func([]byte, int) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("fn's error: %v", err)
	}
}

// FuzzParse: a line either is refused or reads back as a row whose key
// encodes to its raw bytes and whose JSON value is as the reference
// stores it; nothing panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"key":[{"type":"string","value":"a"}],"hex":"026100","value":{"x":[1]},"versionstamp":"00000000000000000001","expiresAt":1767312000000,"expired":false}`,
		`{"key":null,"hex":"ff01","value":1,"versionstamp":"00000000000000000001","expiresAt":null,"expired":false,"error":"key does not decode"}`,
		`{"key":[],"hex":"","value":"not json","versionstamp":"00000000000000000002","expiresAt":null,"error":"value is not valid JSON"}`,
		`{"key":null,"value":1}`, `{"meta":{"seq":63}}`, ``, `{"key":"[\"a\"]","value":null}`,
		`{"key":"[\"a\"]","value":"\ufffd","valueHex":"ff","error":"value is not valid JSON"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		l, ok, err := Parse(line, 1)
		if err != nil || !ok {
			return
		}
		if l.Key != nil {
			if enc, err := codec.Encode(l.Key); err != nil || !bytes.Equal(enc, l.Raw) {
				t.Fatalf("accepted key %v does not encode to its raw %x: %v", l.Key, l.Raw, err)
			}
		}
		if l.Valid && l.Error == "" {
			if norm, err := codec.NormalizeJSON(l.Value); err != nil || !bytes.Equal(norm, l.Value) {
				t.Fatalf("accepted value %q is not normalised: %v", l.Value, err)
			}
		}
	})
}
