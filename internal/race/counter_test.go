package race_test

import (
	"errors"
	"strings"
	"testing"

	"kvdeck/internal/race"
)

func TestParseCounter(t *testing.T) {
	for _, tc := range []struct {
		value string
		n     int64
		err   string // a fragment of the error; "" = valid
	}{
		{value: `{"n":5}`, n: 5},
		{value: `{"n":-3,"owner":"svc"}`, n: -3},
		{value: `{"n":5.0}`, n: 5},
		{value: `{"n":1e3}`, n: 1000},
		{value: ` { "n" : 0 } `, n: 0},
		{value: `{"n":9007199254740990}`, n: 9007199254740990},
		{value: `"text"`, err: `holds "text"`},
		{value: `null`, err: "holds null"},
		{value: `[1]`, err: "holds [1]"},
		{value: `{}`, err: `no field "n"`},
		{value: `{"n":"5"}`, err: `n is "5", not a number`},
		{value: `{"n":1.5}`, err: "not an integer"},
		{value: `{"n":9007199254740991}`, err: "2^53"},
		{value: `{"n":1e300}`, err: "not an integer"},
		{value: `not json`, err: "holds not json"},
		{value: `{"n":1} trailing`, err: "holds"},
	} {
		n, err := race.ParseCounter(counterKey, []byte(tc.value))
		switch {
		case tc.err == "" && (err != nil || n != tc.n):
			t.Errorf("%s: %d, %v; want %d", tc.value, n, err, tc.n)
		case tc.err != "" && !errors.Is(err, race.ErrNotCounter):
			t.Errorf("%s: err = %v, want ErrNotCounter", tc.value, err)
		case tc.err != "" && (!strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), `["race", "counter"]`)):
			t.Errorf("%s: error %q lacks %q or the key", tc.value, err, tc.err)
		}
	}
}
