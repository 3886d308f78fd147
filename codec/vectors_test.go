package codec_test

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
)

// vectorLines returns the non-empty lines of a vector file.
func vectorLines(tb testing.TB, name string) []string {
	tb.Helper()
	f, err := os.Open(filepath.Join(storetest.VectorsDir(tb), name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

type keyVector struct {
	Key json.RawMessage `json:"key"`
	Hex string          `json:"hex"`
}

func TestVectorsKeys(t *testing.T) {
	for i, line := range vectorLines(t, "keys.jsonl") {
		var v keyVector
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("keys.jsonl:%d: %v", i+1, err)
		}
		checkKeyVector(t, "keys.jsonl", i+1, v)
	}
}

// checkKeyVector checks one tagged key against its hex encoding in every
// direction the codec offers.
func checkKeyVector(t *testing.T, file string, line int, v keyVector) {
	t.Helper()
	where := file + ":" + strconv.Itoa(line)
	k, err := codec.UnmarshalTagged(v.Key)
	if err != nil {
		t.Errorf("%s: UnmarshalTagged(%s): %v", where, v.Key, err)
		return
	}
	enc, err := codec.Encode(k)
	if err != nil {
		t.Errorf("%s: Encode(%v): %v", where, k, err)
		return
	}
	if got := hex.EncodeToString(enc); got != v.Hex {
		t.Errorf("%s: Encode(%v) = %s, want %s", where, k, got, v.Hex)
	}
	raw, _ := hex.DecodeString(v.Hex)
	dec, err := codec.Decode(raw)
	if err != nil {
		t.Errorf("%s: Decode(%s): %v", where, v.Hex, err)
		return
	}
	if !dec.Equal(k) {
		t.Errorf("%s: Decode(%s) = %v, want %v", where, v.Hex, dec, k)
	}
	// The reference wrote the vectors with JSON.stringify; our tagged
	// output must be the same bytes (no vector key holds U+2028/U+2029,
	// the one place where we deliberately escape more).
	tagged, err := codec.MarshalTagged(dec)
	if err != nil {
		t.Errorf("%s: MarshalTagged: %v", where, err)
	} else if !bytes.Equal(tagged, v.Key) {
		t.Errorf("%s: MarshalTagged = %s, want %s", where, tagged, v.Key)
	}
	text := codec.Format(dec)
	back, err := codec.Parse(text)
	if err != nil || !back.Equal(dec) {
		t.Errorf("%s: Parse(Format(k) = %s) = %v, %v; want %v", where, text, back, err, dec)
	}
	if codec.Compare(dec, k) != 0 {
		t.Errorf("%s: Compare(k, k) != 0", where)
	}
}

func TestVectorsOrder(t *testing.T) {
	lines := vectorLines(t, "order.jsonl")
	keys := make([]codec.Key, len(lines))
	encs := make([][]byte, len(lines))
	for i, line := range lines {
		k, err := codec.UnmarshalTagged([]byte(line))
		if err != nil {
			t.Fatalf("order.jsonl:%d: %v", i+1, err)
		}
		if keys[i], encs[i] = k, codec.MustEncode(k); !bytes.Equal(mustMarshalTagged(t, k), []byte(line)) {
			t.Errorf("order.jsonl:%d: MarshalTagged = %s, want %s", i+1, mustMarshalTagged(t, k), line)
		}
	}
	for i := range keys {
		for j := range keys {
			want := cmp.Compare(i, j)
			if got := codec.Compare(keys[i], keys[j]); got != want {
				t.Errorf("Compare(line %d %v, line %d %v) = %d, want %d", i+1, keys[i], j+1, keys[j], got, want)
			}
			if got := bytes.Compare(encs[i], encs[j]); got != want {
				t.Errorf("bytes.Compare(enc line %d, enc line %d) = %d, want %d", i+1, j+1, got, want)
			}
		}
	}
}

func TestVectorsInvalid(t *testing.T) {
	for i, line := range vectorLines(t, "invalid.jsonl") {
		var v struct{ Hex, Error, Why string }
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("invalid.jsonl:%d: %v", i+1, err)
		}
		var want error
		switch {
		case strings.Contains(v.Error, "truncated"):
			want = codec.ErrTruncated
		case strings.Contains(v.Error, "invalid KV key encoding tag"):
			want = codec.ErrInvalidTag
		default:
			t.Fatalf("invalid.jsonl:%d: unknown reference error %q", i+1, v.Error)
		}
		raw, _ := hex.DecodeString(v.Hex)
		k, err := codec.Decode(raw)
		if !errors.Is(err, want) {
			t.Errorf("invalid.jsonl:%d (%s): Decode(%s) = %v, %v; want an error matching %v", i+1, v.Why, v.Hex, k, err, want)
		}
		var de *codec.DecodeError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), "at byte ") {
			t.Errorf("invalid.jsonl:%d: error %v does not name the byte offset", i+1, err)
		}
	}
}

// TestVectorsPublicReference checks the keys, stamps and values of the
// store written by the reference: every key in both directions, every value
// normalizing to itself (JSON.stringify is idempotent on its own output).
func TestVectorsPublicReference(t *testing.T) {
	lines := vectorLines(t, "public-reference.expected.jsonl")
	var prev []byte
	rows := 0
	for i, line := range lines {
		var row struct {
			Key          json.RawMessage `json:"key"`
			Hex          string          `json:"hex"`
			Value        json.RawMessage `json:"value"`
			Versionstamp string          `json:"versionstamp"`
			Meta         json.RawMessage `json:"meta"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if row.Meta != nil {
			continue
		}
		rows++
		checkKeyVector(t, "public-reference.expected.jsonl", i+1, keyVector{Key: row.Key, Hex: row.Hex})
		enc, _ := hex.DecodeString(row.Hex)
		if prev != nil && bytes.Compare(prev, enc) >= 0 {
			t.Errorf("line %d: rows not in ascending key order", i+1)
		}
		prev = enc
		seq, err := codec.ParseStamp(row.Versionstamp)
		if err != nil || codec.FormatStamp(seq) != row.Versionstamp {
			t.Errorf("line %d: ParseStamp(%q) = %d, %v", i+1, row.Versionstamp, seq, err)
		}
		// The file escapes U+2028 for line splitters; the stored value and
		// JSON.stringify hold it raw.
		want := strings.ReplaceAll(string(row.Value), `\u2028`, "\u2028")
		got, err := codec.NormalizeJSON([]byte(want))
		if err != nil || string(got) != want {
			t.Errorf("line %d: NormalizeJSON(%s) = %s, %v; want it unchanged", i+1, want, got, err)
		}
	}
	if rows != 60 {
		t.Errorf("read %d rows, want 60", rows)
	}
}

func mustMarshalTagged(tb testing.TB, k codec.Key) []byte {
	tb.Helper()
	b, err := codec.MarshalTagged(k)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
