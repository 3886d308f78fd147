package codec

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestNormalizeJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// Values as the reference store holds them.
		{`{"zeta":1,"alpha":2,"mid":{"z":null,"a":[]}}`, `{"zeta":1,"alpha":2,"mid":{"z":null,"a":[]}}`},
		{`{"nums":[1e+21,1e-7,-0,5e-324,1.7976931348623157e+308,-123.456,9007199254740991,12e3]}`,
			`{"nums":[1e+21,1e-7,0,5e-324,1.7976931348623157e+308,-123.456,9007199254740991,12000]}`},
		{"{\"html\":\"<b>&\\\"'</b>\",\"ctrl\":\"\\u0007\\u001F\\n\\u2028\"}", "{\"html\":\"<b>&\\\"'</b>\",\"ctrl\":\"\\u0007\\u001f\\n\u2028\"}"},
		{`0.30000000000000004`, `0.30000000000000004`},
		{" \t\r\n[ 1 , { } , [ ] , \"\" ] \n", `[1,{},[],""]`},
		// Array-index keys first, ascending; duplicates keep the first slot.
		{`{"b":1,"2":2,"a":3,"1":4,"b":5,"4294967295":6,"01":7}`, `{"1":4,"2":2,"b":5,"a":3,"4294967295":6,"01":7}`},
		{`{"a":1,"a":{"x":1},"a":[2]}`, `{"a":[2]}`},
		{`[1e400,-1e400,-1e-400,1E2,0.0,-0.0e0,123456789012345678901234567890]`, `[null,null,0,100,0,0,1.2345678901234568e+29]`},
		// Escapes JSON.stringify uses, and lone surrogates kept.
		{`"\u00e9\/\ud83d\ude00\uD800x\udc00"`, `"é/😀\ud800x\udc00"`},
		{`"\u0000\u001f\u007f\u0080\b\f"`, "\"\\u0000\\u001f\x7f\u0080\\b\\f\""},
		{`true`, `true`}, {`null`, `null`}, {`"ß"`, `"ß"`},
		// Large objects take the map path for duplicates.
		{`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k3":"x","7":7,"3":3}`,
			`{"3":3,"7":7,"k0":0,"k1":1,"k2":2,"k3":"x","k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16}`},
	} {
		got, err := NormalizeJSON([]byte(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("NormalizeJSON(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
}

func TestNormalizeJSONErrors(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{``, `at byte 0: expected a JSON value, found end of input`},
		{` `, `at byte 1: expected a JSON value`},
		{`{"a":1,}`, `at byte 7: expected a string for an object key, found '}'`},
		{`[1,]`, `at byte 3: expected a JSON value, found ']'`},
		{`[1 2]`, `at byte 3: expected ',' or ']', found '2'`},
		{`{"a" 1}`, `at byte 5: expected ':'`},
		{`01`, `at byte 1: expected end of input`},
		{`1.`, `at byte 2: expected a digit`},
		{`-`, `at byte 1: expected a digit`},
		{`+1`, `at byte 0: expected a JSON value, found '+'`},
		{`NaN`, `at byte 0`},
		{`Infinity`, `at byte 0`},
		{`nul`, `at byte 0`},
		{`'a'`, `at byte 0`},
		{`"abc`, `at byte 4: expected '"' to close the string`},
		{"\"a\tb\"", `at byte 2: expected a character or escape`},
		{`"\x"`, `at byte 2: expected one of`},
		{`"\u12"`, `at byte 3: expected 4 hex digits`},
		{"\"ok\xff\"", `at byte 3: invalid UTF-8 in string`},
		{"\"\xed\xa0\x80\"", `at byte 1: invalid UTF-8`}, // raw surrogate bytes are not UTF-8
		{"\ufeff1", `at byte 0`},                         // JSON.parse refuses a BOM
		{`[1] x`, `at byte 4: expected end of input, found 'x'`},
		{strings.Repeat("[", maxJSONDepth+1), `nesting deeper than`},
	} {
		got, err := NormalizeJSON([]byte(c.in))
		if !errors.Is(err, ErrInvalidJSON) || got != nil {
			t.Errorf("NormalizeJSON(%q) = %s, %v; want ErrInvalidJSON", c.in, got, err)
			continue
		}
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("NormalizeJSON(%q) error %q, want it to contain %q", c.in, err, c.msg)
		}
	}
	deep := strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth)
	if got, err := NormalizeJSON([]byte(deep)); err != nil || string(got) != deep {
		t.Errorf("NormalizeJSON at the depth limit: %v", err)
	}
}

func TestStamps(t *testing.T) {
	if got := FormatStamp(42); got != "00000000000000000042" {
		t.Errorf("FormatStamp(42) = %s", got)
	}
	for _, s := range []string{"00000000000000000001", "09223372036854775807", "00000000000000000063"} {
		seq, err := ParseStamp(s)
		if err != nil || FormatStamp(seq) != s {
			t.Errorf("ParseStamp(%s) = %d, %v", s, seq, err)
		}
	}
	for _, s := range []string{"", "42", "00000000000000000000", "0000000000000000004a", "+0000000000000000042",
		"000000000000000000042", "10000000000000000000", " 0000000000000000042", "０0000000000000000042"} {
		if _, err := ParseStamp(s); !errors.Is(err, ErrBadStamp) {
			t.Errorf("ParseStamp(%q): %v, want ErrBadStamp", s, err)
		}
	}
	if _, err := ParseStamp("42"); err == nil || !strings.Contains(err.Error(), "exactly 20 decimal digits") {
		t.Errorf("message: %v", err)
	}
	// Written with strconv, as fmt's %020d wrote them, negatives included.
	for _, seq := range []int64{0, 1, 9, 10, 42, 1e10, 1<<63 - 1, -1, -42, -1 << 63} {
		if got, want := string(AppendStamp([]byte("x"), seq)), "x"+fmt.Sprintf("%020d", seq); got != want {
			t.Errorf("AppendStamp(%d) = %s, want %s", seq, got, want)
		}
	}
}
