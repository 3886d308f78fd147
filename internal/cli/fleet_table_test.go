package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/internal/storetest"
)

// tourFleet saves the stores of the tour: a store with rows, a missing
// file, an SQLite file that is not a store, and a server that is not
// there (a refused connection: its error is 150 characters and more).
func tourFleet(t *testing.T) map[string]string {
	t.Helper()
	env := storesEnv(t)
	dir := t.TempDir()
	alpha := "file:" + filepath.Join(dir, "alpha.db")
	if r := runMain(t, env, "", []string{"--db", alpha, "set", `["a"]`, "1"}); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	other := "file:" + filepath.Join(dir, "other.db")
	storetest.Exec(t, other, "CREATE TABLE people (name TEXT)")
	configFile(t, env, `[stores.alpha]
url = "`+alpha+`"
group = "files"
[stores.far]
url = "http://127.0.0.1:9"
group = "remote"
[stores.gone]
url = "file:`+filepath.Join(dir, "gone.db")+`"
group = "files"
[stores.other]
url = "`+other+`"
group = "files"
`, 0o600)
	return env
}

// fleetRounds are two rounds of seven stores as fleet status -w prints
// them: figures that change between the rounds, errors of every kind.
func fleetRounds() [2][]fleetLine {
	row := func(name, group string, seq, rate, round int) fleetStatusRow {
		s, r := int64(seq), float64(rate)
		out := fleetStatusRow{Store: name, Group: group, Status: "ok", RTTMS: 12, Seq: &s, Rows: 4200, LeasesHeld: 3,
			AlarmsOverdue: 2, WorstLatenessMS: 29_217_000_000, QueueReady: 14, QueueDelayed: 6, OldestReadyMS: 21_000, Expired: 1, rowsText: "4200", expiredText: "1",
			Findings: 16, FindingErrors: 1, CommitsPerSec: &r}
		if round == 1 { // narrower figures: the columns stay as wide
			out.RTTMS, out.AlarmsOverdue, out.WorstLatenessMS, out.QueueReady, out.OldestReadyMS, out.Findings, out.FindingErrors = 1250, 0, 0, 1, 125_000, 3, 0
		}
		return out
	}
	bad := func(name, group, state, msg string) fleetStatusRow {
		return fleetStatusRow{Store: name, Group: group, Status: "error", MS: 3, Error: msg, state: state}
	}
	unreachable := `pulse: database unreachable: cannot reach http://127.0.0.1:9 (is the server running and the URL right?): request not sent: Post "http://127.0.0.1:9/v2/pipeline": dial tcp 127.0.0.1:9: connect: connection refused`
	var rounds [2][]fleetLine
	for i, seqs := range [2][3]int{{158, 9, 1_000_000}, {212, 9, 1_000_540}} {
		trend := &fleetTrend{rates: []float64{0, 1, 4, 2, 8, 3}[:3+3*i]}
		for _, r := range []fleetStatusRow{
			row("demo", "", seqs[0], 54-i*40, i), row("dev", "dev", seqs[1], 0, i),
			bad("far", "remote", "unreachable", unreachable),
			bad("gone", "files", "missing file", "no database at /home/me/gone.db (a read-only open creates none)"),
			bad("other", "files", "not a store", "pulse: not a kvdeck store: file:/home/me/other.db has no kv and kv_meta tables: SQL logic error: no such table: kv_meta (1)"),
			row("prod-eu", "prod", seqs[2], 540, i), row("reference", "files", 63, 0, i),
		} {
			rounds[i] = append(rounds[i], fleetStatusLine(r, trend.cells(r.CommitsPerSec)))
		}
	}
	return rounds
}

// TestFleetWatchScreens: a round of kvdeck fleet -w on a terminal at
// 120x40, 80x24 and 60x18, and the next round: the columns that fit the
// width (the others named below the table), each error cut to the width
// below it, every line within the width and above the last row, and the
// header and every column where the round before had them.
func TestFleetWatchScreens(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}, {60, 18}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			out := &fleetStatusOut{table: newFleetTable((&FleetStatusCmd{Watch: time.Second}).columns(false))}
			rounds := fleetRounds()
			var frames []string
			var heads []string
			for _, lines := range rounds {
				screen := out.table.screen("kvdeck fleet · 7 stores, 3 not read · every 1s · 2026-12-06T08:51:37.104Z · ctrl+c ends", lines, nil, size[0], size[1])
				if len(screen) >= size[1] {
					t.Errorf("%d lines on a screen of %d rows: the last row would scroll it", len(screen), size[1])
				}
				for _, l := range screen {
					if w := ansi.StringWidth(l); w > size[0] {
						t.Errorf("a line of %d cells on a screen of %d: %q", w, size[0], l)
					}
				}
				heads = append(heads, screen[2])
				frames = append(frames, strings.Join(screen, "\n"))
			}
			if heads[0] != heads[1] {
				t.Errorf("the header moved between rounds:\n%s\n%s", heads[0], heads[1])
			}
			golden.RequireEqual(t, strings.Join(frames, "\n----- the next round\n")+"\n")
		})
	}
}

// TestFleetWatchOnATerminal: kvdeck fleet -w on a terminal (a
// pseudo-terminal of 120x40) redraws in place: each round goes to the top
// left and erases what was below, its lines within 120 columns (COMMITS/S
// and TREND wrapped, and a refused connection's 190-character error), the
// header the same every round; the errors, cut on the screen, are printed
// whole on stderr when the watch ends. It printed the whole table below
// the last, every round, its error rows wrapping.
func TestFleetWatchOnATerminal(t *testing.T) {
	env := tourFleet(t)
	master, slave := openPTY(t, 120, 40)
	var screen strings.Builder
	var mu sync.Mutex
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	frames := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Split(screen.String(), cursorHome)[1:]
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errb storetest.Buffer
	done := make(chan int)
	go func() {
		done <- Main(ctx, []string{"fleet", "-w", "100ms", "--timeout", "2s"}, strings.NewReader(""), slave, &errb, env)
	}()
	for deadline := time.Now().Add(20 * time.Second); len(frames()) < 4 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	got := frames()
	if len(got) < 3 {
		t.Fatalf("%d redraws in place (the cursor sent home); want a round each:\n%q", len(got), screen.String())
	}
	var head string
	for i, f := range got[:len(got)-1] { // the last may be cut short by the interrupt
		f = strings.NewReplacer("\r", "", eraseLine, "", eraseBelow, "").Replace(f)
		lines := strings.Split(strings.TrimSuffix(f, "\n"), "\n")
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > 120 {
				t.Errorf("round %d: a line of %d cells on a terminal of 120: %q", i, w, l)
			}
		}
		if len(lines) < 8 || !strings.HasPrefix(lines[0], "kvdeck fleet · 4 stores, 3 not read · every 100ms · ") || !strings.HasPrefix(lines[2], "STORE") {
			t.Fatalf("round %d:\n%s", i, f)
		}
		if i == 0 {
			head = lines[2]
		} else if lines[2] != head {
			t.Errorf("round %d: the header moved:\n%s\n%s", i, head, lines[2])
		}
		if !anyLine(lines, func(l string) bool {
			return strings.HasPrefix(l, "far: pulse: database unreachable:") && strings.HasSuffix(l, "…")
		}) ||
			!anyLine(lines, func(l string) bool { return strings.HasPrefix(l, "gone   files   missing file") }) {
			t.Errorf("round %d: the unreachable store's error is not cut to the width, or the missing file not said:\n%s", i, f)
		}
	}
	if e := errb.String(); !strings.Contains(e, "kvdeck: far: pulse: database unreachable: cannot reach http://127.0.0.1:9") || !strings.Contains(e, "connection refused\n") {
		t.Errorf("the errors in full on stderr at the end: %q", e)
	}
}

// anyLine reports whether a line satisfies ok.
func anyLine(lines []string, ok func(string) bool) bool {
	for _, l := range lines {
		if ok(l) {
			return true
		}
	}
	return false
}

// TestFleetWatchPiped: kvdeck fleet -w into a pipe prints one line per
// store and round as each round ends, each with its time, the header
// once, and no control sequence. It printed each round's table (and only
// when its buffer filled: a pipe saw nothing of a short fleet until the
// watch ended).
func TestFleetWatchPiped(t *testing.T) {
	env := tourFleet(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var mu sync.Mutex
	var got []string
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			mu.Lock()
			got = append(got, sc.Text())
			mu.Unlock()
		}
	}()
	seen := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int)
	var errb storetest.Buffer
	go func() {
		done <- Main(ctx, []string{"fleet", "-w", "100ms", "--timeout", "2s"}, strings.NewReader(""), w, &errb, env)
	}()
	for deadline := time.Now().Add(20 * time.Second); len(seen()) < 1+3*4 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	running := len(seen())
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	w.Close()
	if running < 1+3*4 {
		t.Fatalf("%d lines reached the pipe while the watch ran; want three rounds of 4 stores and the header:\n%s", running, strings.Join(seen(), "\n"))
	}
	lines := seen()
	if !strings.HasPrefix(lines[0], "TIME ") || !strings.Contains(lines[0], "  STORE  GROUP") {
		t.Errorf("header %q", lines[0])
	}
	stamp := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z  (alpha|far|gone|other) `)
	rounds := map[string][]string{}
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "TIME ") {
			t.Errorf("the header again: %q", l)
			continue
		}
		if !stamp.MatchString(l) || strings.ContainsRune(l, '\x1b') {
			t.Errorf("line %q: want the time, a store, no control sequence", l)
			continue
		}
		rounds[l[:24]] = append(rounds[l[:24]], l[26:])
	}
	for at, stores := range rounds {
		if len(stores) != 4 && at != lines[len(lines)-1][:24] { // the interrupt may end a round
			t.Errorf("round %s: %d lines, want one per store:\n%s", at, len(stores), strings.Join(stores, "\n"))
		}
	}
	if !anyLine(lines, func(l string) bool {
		return strings.Contains(l, "far    remote  unreachable") && strings.HasSuffix(l, "connection refused")
	}) {
		t.Errorf("the unreachable store's line with its whole error:\n%s", strings.Join(lines, "\n"))
	}
}

// TestFleetFindColumnsAroundErrors: fleet find's rows keep the header's
// columns before and after an error row (a missing file, not a store):
// the error goes after the last column (a pipe) or below the table (a
// terminal). The rows after an error row were aligned on their own.
func TestFleetFindColumnsAroundErrors(t *testing.T) {
	env := tourFleet(t)
	dir := t.TempDir()
	zed := "file:" + filepath.Join(dir, "zed.db")
	if r := runMain(t, env, "", []string{"--db", zed, "set", `["a"]`, "1", "--expire-in", "1h"}); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if r := runMain(t, env, "", []string{"stores", "add", "zed", zed}); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	r := runMain(t, env, "", []string{"fleet", "find", `["a"]`, "--timeout", "2s"})
	l := lines(r.stdout)
	if r.code != CodeError || len(l) != 6 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, col := range []string{"GROUP", "STATUS", "VERSIONSTAMP", "EXPIRES"} {
		at := strings.Index(l[0], col)
		for _, row := range l[1:] {
			if len(row) <= at || row[at-2:at] != "  " || row[at] == ' ' {
				t.Errorf("column %s (at %d) left by %q:\n%s", col, at, row, r.stdout)
			}
		}
	}
	if !strings.Contains(l[3], "gone   files   missing file  -") || !strings.Contains(l[3], "no database at ") {
		t.Errorf("the missing file's row: %q", l[3])
	}
}
