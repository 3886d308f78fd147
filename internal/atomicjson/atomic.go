// Package atomicjson reads and writes the `atomic` JSON document
// (`kvdeck atomic`, the Compose tab's save and load):
//
//	{"checks":[{"key","versionstamp"}],
//	 "mutations":[{"type":"set","key","value","expireIn"?},{"type":"delete","key"}]}
//
// and the strict JSON objects user input is read with (Object: unknown
// fields refused, every error naming the path of the problem).
package atomicjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"kvdeck/codec"
	"kvdeck/store"
)

// Parse reads an atomic document. A key is key text in a JSON string or a
// tagged JSON array; versionstamp must be given (null: the key must be
// absent); expireIn is milliseconds or a Go duration string. Unknown
// fields are refused and every error names the path of the problem. On an
// error both slices are nil: nothing half-parsed is returned.
func Parse(raw []byte) ([]store.Check, []store.Mutation, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var doc json.RawMessage
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, fmt.Errorf("input: %w", describeJSONError(err))
	}
	if off := dec.InputOffset(); len(bytes.Trim(raw[off:], " \t\r\n")) > 0 {
		return nil, nil, fmt.Errorf("input: unexpected text after the JSON document at byte %d", off)
	}
	root, err := DecodeObject(doc, "", "checks", "mutations")
	if err != nil {
		return nil, nil, err
	}
	rawChecks, err := root.Array("checks")
	if err != nil {
		return nil, nil, err
	}
	rawMuts, err := root.Array("mutations")
	if err != nil {
		return nil, nil, err
	}
	checks, err := parseEach(rawChecks, "checks", parseCheck)
	if err != nil {
		return nil, nil, err
	}
	muts, err := parseEach(rawMuts, "mutations", parseMutation)
	if err != nil {
		return nil, nil, err
	}
	return checks, muts, nil
}

// parseEach parses each element of the array name with parse, element i
// at the path name[i]; it stops at the first error.
func parseEach[T any](raws []json.RawMessage, name string, parse func(json.RawMessage, string) (T, error)) ([]T, error) {
	out := make([]T, 0, len(raws))
	for i, raw := range raws {
		v, err := parse(raw, fmt.Sprintf("%s[%d]", name, i))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// parseCheck reads one check.
func parseCheck(raw json.RawMessage, path string) (store.Check, error) {
	var c store.Check
	o, err := DecodeObject(raw, path, "key", "versionstamp")
	if err != nil {
		return c, err
	}
	if c.Key, err = o.Key("key"); err != nil {
		return c, err
	}
	c.Versionstamp, err = o.Stamp("versionstamp")
	return c, err
}

// parseMutation reads one set or delete.
func parseMutation(raw json.RawMessage, path string) (store.Mutation, error) {
	o, err := DecodeObject(raw, path, "type", "key", "value", "expireIn")
	if err != nil {
		return store.Mutation{}, err
	}
	if !o.Has("type") {
		return store.Mutation{}, fmt.Errorf("%s: missing (\"set\" or \"delete\")", o.Field("type"))
	}
	typ, err := o.Str("type")
	if err != nil {
		return store.Mutation{}, err
	}
	m := store.Mutation{Type: store.MutationType(typ)}
	if m.Key, err = o.Key("key"); err != nil {
		return m, err
	}
	switch m.Type {
	case store.MutationSet:
		if m.Value, err = o.Value("value"); err != nil {
			return m, err
		}
		if m.ExpireIn, err = o.Duration("expireIn"); err != nil {
			return m, err
		}
	case store.MutationDelete:
		for _, f := range []string{"value", "expireIn"} {
			if o.Has(f) {
				return m, fmt.Errorf("%s: a delete takes no %s", o.Field(f), f)
			}
		}
	default:
		return m, fmt.Errorf("%s: want \"set\" or \"delete\", found %s", o.Field("type"), strconv.Quote(typ))
	}
	return m, nil
}

// checkJSON and mutationJSON are the document's rows as Marshal writes
// them: keys as key text, expireIn in milliseconds.
type checkJSON struct {
	Key          string  `json:"key"`
	Versionstamp *string `json:"versionstamp"`
}

type mutationJSON struct {
	Type     store.MutationType `json:"type"`
	Key      string             `json:"key"`
	Value    json.RawMessage    `json:"value,omitempty"`
	ExpireIn *int64             `json:"expireIn,omitempty"`
}

type docJSON struct {
	Checks    []checkJSON    `json:"checks"`
	Mutations []mutationJSON `json:"mutations"`
}

// Marshal writes checks and mutations as an atomic document that Parse
// reads back to the same commit: keys as key text (readable, and exact for
// every part type), an absent check as null, expireIn in milliseconds. It
// is indented for people and ends in a newline. A set's value must be
// valid JSON.
func Marshal(checks []store.Check, muts []store.Mutation) ([]byte, error) {
	doc := docJSON{Checks: make([]checkJSON, 0, len(checks)), Mutations: make([]mutationJSON, 0, len(muts))}
	for _, c := range checks {
		row := checkJSON{Key: codec.Format(c.Key)}
		if c.Versionstamp != "" {
			row.Versionstamp = &c.Versionstamp
		}
		doc.Checks = append(doc.Checks, row)
	}
	for i, m := range muts {
		row := mutationJSON{Type: m.Type, Key: codec.Format(m.Key)}
		if m.Type == store.MutationSet {
			v, err := codec.NormalizeJSON(m.Value)
			if err != nil {
				return nil, fmt.Errorf("mutations[%d].value: %w", i, err)
			}
			row.Value = v
			if m.ExpireIn != nil {
				ms := int64(*m.ExpireIn / time.Millisecond)
				row.ExpireIn = &ms
			}
		}
		doc.Mutations = append(doc.Mutations, row)
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
