package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
)

// TestTextTimesOneFormat: every text output writes an instant one way,
// RFC 3339 with three millisecond digits (timeText), also where the
// milliseconds are zero; before issue 22 point 16 get, list, dump,
// lease, alarm, queue send, sweep, undo and demo dropped trailing zeros
// (2026-01-02T00:00:45Z) while watch and the list commands kept three.
// No file of the package calls the formatter that drops them.
func TestTextTimesOneFormat(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(src), "usertext.FormatTime(") {
			t.Errorf("%s calls usertext.FormatTime: text outputs write times with timeText", f)
		}
	}
	c := &cli{t: t, url: "file:" + filepath.Join(t.TempDir(), "kv.db"), now: storetest.T0}
	c.must("set", `["k"]`, "1", "--expire-in", "45s")
	outs := []string{
		c.must("get", `["k"]`),
		c.must("list"),
		c.must("-o", "text", "dump"),
		c.must("lease", "acquire", `["dwk_lease", "job"]`, "--ttl", "30s"),
		c.must("alarm", "set", "Cart", "ab", "+1m"),
		c.must("queue", "send", "q", "1", "--delay", "2s"),
		c.at(storetest.T0 + 60_000).must("sweep"),
	}
	times := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
	seen := 0
	for _, out := range outs {
		for _, m := range times.FindAllStringSubmatch(out, -1) {
			seen++
			if len(m[1]) != 4 {
				t.Errorf("time %s in %q: want three millisecond digits", m[0], out)
			}
		}
	}
	if seen < len(outs)-1 { // the sweep leaves no expiry to name
		t.Errorf("only %d times in %d outputs: %q", seen, len(outs), outs)
	}
}
