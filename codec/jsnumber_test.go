package codec

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestFormatNumberMatchesNode checks FormatNumber against String(x) as
// computed by node (testdata/jsnumber.txt, see testdata/gen_js.mjs).
func TestFormatNumberMatchesNode(t *testing.T) {
	f, err := os.Open("testdata/jsnumber.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		hexBits, want, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			t.Fatalf("bad line %q", sc.Text())
		}
		u, err := strconv.ParseUint(hexBits, 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		x := math.Float64frombits(u)
		if got := FormatNumber(x); got != want {
			t.Errorf("FormatNumber(%v, bits %s) = %q, node says %q", x, hexBits, got, want)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Fatalf("only %d cases read", n)
	}
}

func TestFormatNumberTable(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-1, "-1"}, {0.5, "0.5"},
		{1e21, "1e+21"}, {1e20, "100000000000000000000"}, {1e-7, "1e-7"}, {1e-6, "0.000001"},
		{1.5e-7, "1.5e-7"}, {0.30000000000000004, "0.30000000000000004"}, {5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"}, {-1e308, "-1e+308"}, {12e3, "12000"},
		{18446744073709552000, "18446744073709552000"}, {-123.456, "-123.456"},
		{math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"}, {math.NaN(), "NaN"},
	} {
		if got := FormatNumber(c.in); got != c.want {
			t.Errorf("FormatNumber(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestNormalizeJSONMatchesNode checks NormalizeJSON against
// JSON.stringify(JSON.parse(in)) as computed by node
// (testdata/normalize.jsonl, see testdata/gen_js.mjs).
func TestNormalizeJSONMatchesNode(t *testing.T) {
	data, err := os.ReadFile("testdata/normalize.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for i, line := range lines {
		var c struct{ In, Out string }
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		got, err := NormalizeJSON([]byte(c.In))
		if err != nil {
			t.Errorf("line %d: NormalizeJSON(%s): %v", i+1, c.In, err)
			continue
		}
		if string(got) != c.Out {
			t.Errorf("line %d: NormalizeJSON(%s)\n got %s\nwant %s", i+1, c.In, got, c.Out)
		}
	}
}
