package codec

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
)

func TestMarshalTagged(t *testing.T) {
	for _, c := range []struct {
		k    Key
		want string
	}{
		{nil, `[]`},
		{Key{String("a"), Number(1.5), Bigint(-7), Bool(false)},
			`[{"type":"string","value":"a"},{"type":"number","value":1.5},{"type":"bigint","value":"-7"},{"type":"boolean","value":false}]`},
		{Key{Number(negZero), Number(math.Inf(1)), Number(math.Inf(-1)), Number(-1e308), Number(0)},
			`[{"type":"number","value":"-0"},{"type":"number","value":"Infinity"},{"type":"number","value":"-Infinity"},{"type":"number","value":-1e+308},{"type":"number","value":0}]`},
		{Key{Bytes([]byte{0xff, 0, 0}), Bytes(nil)},
			`[{"type":"Uint8Array","value":"_wAA","byteLength":3},{"type":"Uint8Array","value":"","byteLength":0}]`},
		// JSON.stringify escapes, plus U+2028/U+2029 for line splitters.
		{Key{String("<&>\"\\\n\x01\u2028\u2029\x7f")}, `[{"type":"string","value":"<&>\"\\\n\u0001\u2028\u2029` + "\x7f" + `"}]`},
	} {
		got, err := MarshalTagged(c.k)
		if err != nil || string(got) != c.want {
			t.Errorf("MarshalTagged(%v) =\n %s, %v\nwant %s", c.k, got, err, c.want)
		}
		if !json.Valid(got) {
			t.Errorf("MarshalTagged(%v) is not valid JSON", c.k)
		}
		back, err := UnmarshalTagged(got)
		if err != nil || !back.Equal(c.k) {
			t.Errorf("UnmarshalTagged(%s) = %v, %v", got, back, err)
		}
	}
	for _, c := range []struct {
		k    Key
		want error
	}{
		{Key{Number(math.NaN())}, ErrNaN},
		{Key{String("\xff")}, ErrInvalidUTF8},
		{Key{{}}, ErrInvalidTag},
	} {
		if b, err := MarshalTagged(c.k); !errors.Is(err, c.want) || b != nil {
			t.Errorf("MarshalTagged(%v) = %s, %v; want %v", c.k, b, err, c.want)
		}
	}
}

// unmarshalTagged is UnmarshalTagged of a string, for the decode tables.
func unmarshalTagged(s string) (Key, error) { return UnmarshalTagged([]byte(s)) }

func TestUnmarshalTagged(t *testing.T) {
	checkDecodes(t, "UnmarshalTagged", unmarshalTagged, map[string]Key{
		`[{"type":"Uint8Array","value":"_wAA"}]`:                 {Bytes([]byte{0xff, 0, 0})}, // byteLength optional
		`[{"type":"Uint8Array","value":"_w==","byteLength":1}]`:  {Bytes([]byte{0xff})},       // padding accepted
		`[{"type":"Uint8Array","value":"AP8=","byteLength":2}]`:  {Bytes([]byte{0, 0xff})},
		`[{"value":"7","type":"bigint"}]`:                        {Bigint(7)}, // member order is free
		`[{"type":"bigint","value":-9223372036854775808}]`:       {Bigint(math.MinInt64)},
		`[{"type":"bigint","value":"007"}]`:                      {Bigint(7)},
		`[{"type":"number","value":-0}]`:                         {Number(negZero)},
		`[{"type":"number","value":1e-400}]`:                     {Number(0)},
		` [ { "type" : "string" , "value" : "\ud83d\ude00" } ] `: {String("😀")},
	})
}

func TestUnmarshalTaggedErrors(t *testing.T) {
	checkDecodeErrors(t, "UnmarshalTagged", unmarshalTagged, []decodeErrorCase{
		{`{}`, ErrSyntax, `column 1: expected a JSON array of key parts`},
		{`[1]`, ErrSyntax, `column 2: expected a key part object`},
		{`[{"type":"string","value":"a"}`, ErrSyntax, `column 31: expected ',' or ']', found end of input`},
		{`[{"type":"strin","value":"a"}]`, ErrSyntax, `column 10: unknown key part type "strin"`},
		{`[{"type":"string"}]`, ErrSyntax, `expected a "value"`},
		{`[{"value":"a"}]`, ErrSyntax, `expected a "type" string`},
		{`[{"type":"string","value":"a","value":"b"}]`, ErrSyntax, `duplicate member "value"`},
		{`[{"type":"string","value":"a","extra":1}]`, ErrSyntax, `column 31: unexpected member "extra"`},
		{`[{"type":"string","value":1}]`, ErrSyntax, `expected a string as the value of a string part, found a number`},
		{`[{"type":"string","value":"\udc00"}]`, ErrInvalidUTF8, `lone surrogate`},
		{`[{"type":"number","value":"NaN"}]`, ErrNaN, `NaN`},
		{`[{"type":"number","value":"1"}]`, ErrSyntax, `expected a JSON number or one of`},
		{`[{"type":"number","value":1e999}]`, ErrSyntax, `beyond float64 range`},
		{`[{"type":"number","value":null}]`, ErrSyntax, `found null`},
		{`[{"type":"bigint","value":"9223372036854775808"}]`, ErrBigintRange, `outside the signed 64-bit range`},
		{`[{"type":"bigint","value":"1.5"}]`, ErrSyntax, `expected a decimal integer`},
		{`[{"type":"bigint","value":1.5}]`, ErrSyntax, `expected a decimal integer`},
		{`[{"type":"boolean","value":"true"}]`, ErrSyntax, `expected true or false`},
		{`[{"type":"Uint8Array","value":"AA","byteLength":2}]`, ErrSyntax, `byteLength 2 does not match`},
		{`[{"type":"Uint8Array","value":"AA","byteLength":"1"}]`, ErrSyntax, `expected a number for byteLength`},
		{`[{"type":"Uint8Array","value":"+w"}]`, ErrSyntax, `expected base64url`},
		{`[{"type":"Uint8Array","value":"A"}]`, ErrSyntax, `expected base64url`},
		{`[{"type":"Uint8Array","value":"AA="}]`, ErrSyntax, `expected base64url`},
		{`[{"type":"string","value":"a","byteLength":1}]`, ErrSyntax, `byteLength is only allowed`},
	})
}

// TestKeyJSON checks Key inside encoding/json documents: outputs are
// tagged, inputs may be tagged or a string of key text.
func TestKeyJSON(t *testing.T) {
	type doc struct {
		Key   Key `json:"key"`
		Other Key `json:"other,omitempty"`
	}
	out, err := json.Marshal(doc{Key: Key{String("a"), Bigint(1)}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"key":[{"type":"string","value":"a"},{"type":"bigint","value":"1"}]}`; string(out) != want {
		t.Errorf("json.Marshal = %s, want %s", out, want)
	}
	if out, _ := json.Marshal(doc{}); string(out) != `{"key":[]}` {
		t.Errorf("nil key marshals as %s", out)
	}
	for _, in := range []string{
		`{"key":[{"type":"string","value":"a"},{"type":"bigint","value":"1"}]}`,
		`{"key":"[\"a\", 1n]"}`,
		`{"key":" [ {\"type\":\"string\",\"value\":\"a\"}, {\"type\":\"bigint\",\"value\":\"1\"} ] "}`,
		`{"key":[{"type":"string","value":"a"},{"type":"bigint","value":"1"}],"other":null}`,
	} {
		var d doc
		if err := json.Unmarshal([]byte(in), &d); err != nil || !d.Key.Equal(Key{String("a"), Bigint(1)}) || d.Other != nil {
			t.Errorf("json.Unmarshal(%s) = %v, %v", in, d, err)
		}
	}
	for _, c := range []struct {
		in   string
		want error
	}{
		{`{"key":"[NaN]"}`, ErrNaN},
		{`{"key":"users"}`, ErrSyntax},
		{`{"key":{}}`, ErrSyntax},
		{`{"key":"[\"\ud800\"]"}`, ErrInvalidUTF8},
		{`{"key":7}`, ErrSyntax},
	} {
		var d doc
		if err := json.Unmarshal([]byte(c.in), &d); !errors.Is(err, c.want) {
			t.Errorf("json.Unmarshal(%s): %v, want %v", c.in, err, c.want)
		}
	}
	// UnmarshalJSON is a no-op for null, as encoding/json expects.
	k := Key{Bool(true)}
	if err := k.UnmarshalJSON([]byte(" null ")); err != nil || !k.Equal(Key{Bool(true)}) {
		t.Errorf("UnmarshalJSON(null) = %v, %v", k, err)
	}
}
