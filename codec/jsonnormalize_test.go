package codec

import (
	"bytes"
	"cmp"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// treeNormalize is the oracle of the streaming normalizer: the value read
// whole by the tree reader, then written back with its members placed the
// way JSON.parse places them (a map from key to position).
func treeNormalize(raw []byte) ([]byte, *jsonError) {
	v, err := parseJSONText(string(raw))
	if err != nil {
		return nil, err
	}
	return appendTree(nil, v), nil
}

func appendTree(dst []byte, v jsonValue) []byte {
	switch v.kind {
	case jsonArray:
		dst = append(dst, '[')
		for i, e := range v.arr {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendTree(dst, e)
		}
		return append(dst, ']')
	case jsonObject:
		var keys []string
		last := map[string]jsonValue{}
		for _, m := range v.obj {
			if _, ok := last[m.key]; !ok {
				keys = append(keys, m.key)
			}
			last[m.key] = m.val
		}
		slices.SortStableFunc(keys, func(a, b string) int {
			ai, aok := arrayIndex(a)
			bi, bok := arrayIndex(b)
			if aok && bok {
				return cmp.Compare(ai, bi)
			}
			if aok != bok && aok {
				return -1
			}
			if aok != bok {
				return 1
			}
			return 0
		})
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(appendQuoted(dst, k, quoteJSON), ':')
			dst = appendTree(dst, last[k])
		}
		return append(dst, '}')
	case jsonNumber:
		if math.IsInf(v.num, 0) {
			return append(dst, "null"...)
		}
		return appendJSNumber(dst, v.num)
	case jsonNull, jsonBool, jsonString:
	}
	return appendJSScalar(dst, v)
}

// TestNormalizeMatchesTree: the streaming normalizer writes what the tree
// oracle writes, errors included (same offset and message), on objects
// that need their members moved at several depths, duplicates that
// shrink an inner object before its outer one moves, and bad input.
func TestNormalizeMatchesTree(t *testing.T) {
	for _, in := range []string{
		`{"b":1,"a":2,"b":3}`,
		`{"x":{"k":1,"k":2,"2":0},"1":[{"z":1,"0":2,"z":{"q":1,"q":2}}],"x":{"y":1}}`,
		`{"a":{"d":1,"d":2,"d":3},"10":1,"9":2,"4294967295":3,"4294967294":4,"01":5}`,
		`[{"k":1,"k":{"k":1,"k":2}},{"5":1,"3":2}, 1e400, -0, "\ud800", "\u2028"]`,
		`{"a":1,"a":2` + strings.Repeat(`,"a":3`, 30) + `}`,
		`{"b":1}` + ` x`, `{"a":1,}`, `[1,]`, `{"a" 1}`, `{1:2}`, `"\x"`, ``, ` `,
	} {
		same(t, []byte(in))
	}
	if data, err := os.ReadFile("testdata/normalize.jsonl"); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			same(t, []byte(line))
		}
	}
	big := `{` + strings.Repeat(`"k":1,`, 40) // over the linear scan's 16
	for i := 40; i > 0; i-- {
		big += `"` + strconv.Itoa(i) + `":` + strconv.Itoa(i) + `,`
	}
	same(t, []byte(big+`"k":2}`))
}

func same(t *testing.T, in []byte) {
	t.Helper()
	got, gerr := normalize(in)
	want, werr := treeNormalize(in)
	if (gerr == nil) != (werr == nil) || gerr != nil && *gerr != *werr {
		t.Fatalf("%q: error %v, oracle %v", in, gerr, werr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%q:\n got  %s\n want %s", in, got, want)
	}
}

// FuzzNormalizeMatchesTree: on any input, the streaming normalizer and
// the tree oracle agree.
func FuzzNormalizeMatchesTree(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":2,"b":3}`, `{"x":{"k":1,"k":2,"2":0},"1":[]}`, `[1,"a",null,true]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { same(t, in) })
}
