package atomicjson

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/store"
)

func TestParse(t *testing.T) {
	checks, muts, err := Parse([]byte(`{"checks":[{"key":"[\"a\"]","versionstamp":null},{"key":[{"type":"bigint","value":"7"}],"versionstamp":"00000000000000000003"}],
		"mutations":[{"type":"set","key":"[\"a\"]","value":{"z":1,"a":2},"expireIn":1500},{"type":"set","key":"[\"b\"]","value":1,"expireIn":"2s"},
		{"type":"set","key":"[\"c\"]","value":1,"expireIn":null},{"type":"delete","key":"[\"d\"]"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 2 || checks[0].Versionstamp != "" || checks[1].Versionstamp != "00000000000000000003" || checks[1].Key[0] != codec.Bigint(7) {
		t.Errorf("checks: %+v", checks)
	}
	if len(muts) != 4 || string(muts[0].Value) != `{"z":1,"a":2}` || *muts[0].ExpireIn != 1500*time.Millisecond ||
		*muts[1].ExpireIn != 2*time.Second || muts[2].ExpireIn != nil || muts[3].Type != "delete" {
		t.Errorf("mutations: %+v", muts)
	}
	for doc, want := range map[string]string{
		``:                                   "input",
		`[]`:                                 "want a JSON object, found an array",
		`{"check":[]}`:                       `unknown field "check"`,
		`{"checks":{}}`:                      "checks: want an array",
		`{"checks":[{"key":"[\"a\"]"}]}`:     "checks[0].versionstamp: missing",
		`{"checks":[{"versionstamp":null}]}`: "checks[0].key: missing",
		`{"checks":[{"key":null,"versionstamp":null}]}`:                                        "found null",
		`{"checks":[{"key":"[\"a\"]","versionstamp":3}]}`:                                      "want a 20-digit string or null, found a number",
		`{"checks":[{"key":"[\"a\"]","versionstamp":"00000000000000000000"}]}`:                 "start at 1",
		`{"mutations":[{"key":"[\"a\"]"}]}`:                                                    "mutations[0].type: missing",
		`{"mutations":[{"type":"set","key":"[\"a\"]"}]}`:                                       "mutations[0].value: missing",
		`{"mutations":[{"type":"delete","key":"[\"a\"]","value":1}]}`:                          "a delete takes no value",
		`{"mutations":[{"type":"set","key":"[\"a\"]","value":1,"expireIn":1.5}]}`:              "want an integer",
		`{"mutations":[{"type":"set","key":"[\"a\"]","value":1,"expireIn":"1d"}]}`:             "Go duration",
		`{"mutations":[{"type":"set","key":"[\"a\"]","value":1,"expireIn":1e300}]}`:            "want an integer",
		`{"mutations":[{"type":"set","key":"[\"a\"]","value":1,"expireIn":9223372036854775}]}`: "out of range",
		`{"mutations":[{"type":"set","key":"[\"a\", 1e400]","value":1}]}`:                      "mutations[0].key",
		`{"mutations":[{"type":"set","key":"[\"a\"]","value":"\ud800"}]}`:                      "",
		`{"mutations":[]}x`: "unexpected text after",
	} {
		_, _, err := Parse([]byte(doc))
		if want == "" {
			continue // accepted or refused, either is fine; it must not panic
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v; want an error with %q", doc, err, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"checks":[{"key":"[\"a\"]","versionstamp":null}],"mutations":[{"type":"set","key":"[\"a\"]","value":1,"expireIn":"1s"}]}`,
		`{"mutations":[{"type":"delete","key":[{"type":"string","value":"a"}]}]}`,
		`{"checks":[{"key":"[\"a\"]","versionstamp":"00000000000000000001"}]}`,
		`{"mutations":[{"type":"set","key":"[1n]","value":{"a":[1e400,-0]},"expireIn":-5}]}`,
		`{}`, `[]`, `null`, `{"checks":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		checks, muts, err := Parse(doc)
		if err != nil {
			if checks != nil || muts != nil {
				t.Fatalf("an error came with a half-parsed commit: %v", err)
			}
			return
		}
		// Everything accepted must be writable as is: keys encode, stamps
		// parse, values are already normalised.
		for _, c := range checks {
			if _, err := codec.Encode(c.Key); err != nil {
				t.Fatalf("accepted check key does not encode: %v", err)
			}
			if c.Versionstamp != "" {
				if _, err := codec.ParseStamp(c.Versionstamp); err != nil {
					t.Fatalf("accepted stamp: %v", err)
				}
			}
		}
		for _, m := range muts {
			if _, err := codec.Encode(m.Key); err != nil {
				t.Fatalf("accepted mutation key does not encode: %v", err)
			}
			if m.Type == "set" {
				norm, err := codec.NormalizeJSON(m.Value)
				if err != nil || !bytes.Equal(norm, m.Value) {
					t.Fatalf("accepted value %q is not normalised: %v", m.Value, err)
				}
			}
		}
		requireRoundTrip(t, checks, muts)
	})
}

func TestMarshalRoundTrip(t *testing.T) {
	checks, muts, err := Parse([]byte(`{"checks":[{"key":"[\"a\", 1n, -0, b\"00ff\", true]","versionstamp":null},
		{"key":"[\"b\"]","versionstamp":"00000000000000000042"}],
		"mutations":[{"type":"set","key":"[\"a\", 1n, -0, b\"00ff\", true]","value":{"n":1},"expireIn":"1m30s"},
		{"type":"set","key":"[2.5]","value":null},{"type":"delete","key":"[\"b\"]"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	doc := requireRoundTrip(t, checks, muts)
	for _, want := range []string{`"versionstamp": null`, `"expireIn": 90000`, `"value": null`, `"type": "delete"`} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("document lacks %s:\n%s", want, doc)
		}
	}
	if _, err := Marshal(nil, []store.Mutation{{Type: store.MutationSet, Key: codec.Key{codec.String("a")}, Value: []byte("{")}}); err == nil {
		t.Error("Marshal accepted a value that is not JSON")
	}
}

// requireRoundTrip marshals a commit, parses it back and fails unless it
// is the same commit; it returns the document.
func requireRoundTrip(t *testing.T, checks []store.Check, muts []store.Mutation) []byte {
	t.Helper()
	doc, err := Marshal(checks, muts)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	c2, m2, err := Parse(doc)
	if err != nil {
		t.Fatalf("Parse(Marshal()) = %v\n%s", err, doc)
	}
	if len(c2) != len(checks) || len(m2) != len(muts) {
		t.Fatalf("round trip: %d checks, %d mutations; want %d, %d", len(c2), len(m2), len(checks), len(muts))
	}
	for i, c := range checks {
		if !c.Key.Equal(c2[i].Key) || c.Versionstamp != c2[i].Versionstamp {
			t.Fatalf("check %d: %+v became %+v", i, c, c2[i])
		}
	}
	for i, m := range muts {
		g := m2[i]
		sameTTL := (m.ExpireIn == nil) == (g.ExpireIn == nil) && (m.ExpireIn == nil || *m.ExpireIn == *g.ExpireIn)
		if m.Type != g.Type || !m.Key.Equal(g.Key) || !bytes.Equal(m.Value, g.Value) || !sameTTL {
			t.Fatalf("mutation %d: %+v became %+v", i, m, g)
		}
	}
	return doc
}
