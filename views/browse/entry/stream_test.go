package entry

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// setValue writes key = value in s and returns the row's raw key.
func setValue(t *testing.T, s *store.Store, k string, value []byte) []byte {
	t.Helper()
	key := storetest.Key(t, k)
	if _, err := s.Commit(viewtest.Ctx, nil, []store.Mutation{{Type: store.MutationSet, Key: key, Value: value}}); err != nil {
		t.Fatal(err)
	}
	raw, err := codec.Encode(key)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestValueStreamSaysWhenTheValueChanges: a value rewritten between two
// chunks is not spliced with the new one: the text ends saying so.
func TestValueStreamSaysWhenTheValueChanges(t *testing.T) {
	st, _, _ := viewtest.Reference(t, false)
	value := `"` + strings.Repeat(`x\u0007`, store.ValueChunkSize) + `"`
	raw := setValue(t, st, `["big", "value"]`, []byte(value))
	s := NewStream(st, raw, true, false)
	first := make([]byte, 100)
	if _, err := io.ReadFull(s, first); err != nil {
		t.Fatal(err)
	}
	setValue(t, st, `["big", "value"]`, []byte(`"new"`))
	rest, err := io.ReadAll(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rest), "✗ the value changed while it was read") || len(rest) > 2*store.ValueChunkSize*2 {
		t.Fatalf("the stream went on over a changed value: %d bytes, ending %q", len(rest), rest[max(len(rest)-80, 0):])
	}
}

// TestWriteIndentedMatchesJSONIndent: E's file for a large value is
// written a chunk at a time, and is json.Indent's text whatever the
// chunks cut (strings, escapes, runes, empty objects).
func TestWriteIndentedMatchesJSONIndent(t *testing.T) {
	value := viewtest.BigValue(3 << 20)
	var got, want bytes.Buffer
	if err := WriteIndented(&got, value, true); err != nil {
		t.Fatal(err)
	}
	if err := json.Indent(&want, value, "", "  "); err != nil {
		t.Fatal(err)
	}
	want.WriteByte('\n')
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("the file is %d bytes, json.Indent's text %d", got.Len(), want.Len())
	}
}
