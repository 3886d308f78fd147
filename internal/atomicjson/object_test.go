package atomicjson

import (
	"strings"
	"testing"
)

// TestDecodeObjectNamesWhatItFound: a line that is not a JSON object is
// named by what it is; text that is not JSON is never called null, a
// boolean or a number after its first letter.
func TestDecodeObjectNamesWhatItFound(t *testing.T) {
	for raw, want := range map[string]string{
		``:                             "found nothing",
		`null`:                         "found null",
		` true `:                       "found a boolean",
		`-1.5`:                         "found a number",
		`"x"`:                          "found a string",
		`[1]`:                          "found an array",
		`nope`:                         `found text that is not JSON: "nope"`,
		`truex`:                        `found text that is not JSON: "truex"`,
		`falsy`:                        `found text that is not JSON: "falsy"`,
		`-x`:                           `found text that is not JSON: "-x"`,
		"n\x1b[2J":                     `found text that is not JSON: "n\x1b[2J"`,
		`nullnullnullnullnullnullnull`: `found text that is not JSON: "nullnullnullnullnullnull"…`,
	} {
		_, err := DecodeObject([]byte(raw), "line 1")
		if err == nil || !strings.Contains(err.Error(), "line 1: want a JSON object, "+want) {
			t.Errorf("DecodeObject(%q) = %v; want %q", raw, err, want)
		}
	}
}
