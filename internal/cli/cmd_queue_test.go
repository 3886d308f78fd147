package cli_test

import (
	"context"
	"strings"
	"testing"

	"kvdeck/internal/cli"
	"kvdeck/internal/storetest"
)

// textRunner runs kvdeck -o text over url at the fixed clock T0 and
// returns its output, failing on a non-zero exit.
func textRunner(t *testing.T, url string) func(args ...string) string {
	t.Helper()
	state := t.TempDir() // the journal of the writes
	return func(args ...string) string {
		t.Helper()
		var out, errb strings.Builder
		code := cli.Main(context.Background(), append([]string{"--db", url, "--now", "2026-01-02T00:00:00Z", "-o", "text"}, args...),
			strings.NewReader(""), &out, &errb, map[string]string{"XDG_STATE_HOME": state})
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
}

// TestQueueListTextTimesFixedWidth: `queue list NAME -o text` lines up its
// messages' due times: .100, .123 and a whole second take the same width,
// so what follows them starts at the same column on every line.
func TestQueueListTextTimesFixedWidth(t *testing.T) {
	run := textRunner(t, storetest.File().URL(t))
	for _, delay := range []string{"1s", "1100ms", "1123ms"} {
		run("queue", "send", "jobs", "1", "--delay", delay)
	}
	got := strings.Split(strings.TrimSuffix(run("queue", "list", "jobs"), "\n"), "\n")
	if len(got) != 3 {
		t.Fatalf("queue list: %q", got)
	}
	for i, due := range []string{"2026-01-02T00:00:01.000Z", "2026-01-02T00:00:01.100Z", "2026-01-02T00:00:01.123Z"} {
		at := strings.Index(got[i], "due=")
		if at < 0 || !strings.HasPrefix(got[i][at:], "due="+due+" (in ") {
			t.Errorf("line %d %q: want due=%s", i, got[i], due)
		}
		if after, first := strings.Index(got[i], " (in "), strings.Index(got[0], " (in "); after != first {
			t.Errorf("line %d %q: its due time ends at column %d, the first line's at %d", i, got[i], after, first)
		}
	}
}
