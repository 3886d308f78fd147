package cli

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
)

// decodeLines parses JSON lines (numbers kept as written) into maps.
func decodeLines(t *testing.T, text string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// TestReferenceDump dumps the store the reference implementation wrote and
// compares every row with the expected file: same keys, hex, values,
// stamps and expiry, and the file is not touched.
func TestReferenceDump(t *testing.T) {
	dir := storetest.VectorsDir(t)
	db := filepath.Join(dir, "public-reference.db")
	expected, err := os.ReadFile(filepath.Join(dir, "public-reference.expected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	before := fileSum(t, db)
	r := runMain(t, nil, "", []string{"--db", db, "--read-only", "--now", "1767312000000", "dump"})
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("dump: exit %d: %s", r.code, r.stderr)
	}
	if after := fileSum(t, db); after != before {
		t.Fatalf("public-reference.db changed: sha256 %s, was %s", after, before)
	}
	for _, suffix := range []string{"-journal", "-wal", "-shm"} {
		if _, err := os.Stat(db + suffix); err == nil {
			t.Errorf("dump left %s behind", filepath.Base(db+suffix))
		}
	}
	got := decodeLines(t, r.stdout)
	var want []map[string]any
	for _, m := range decodeLines(t, string(expected)) {
		if _, meta := m["meta"]; !meta {
			want = append(want, m)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("dump printed %d rows, the reference has %d", len(got), len(want))
	}
	expired := 0
	for i := range want {
		for _, f := range []string{"key", "hex", "value", "versionstamp", "expiresAt"} {
			if !reflect.DeepEqual(got[i][f], want[i][f]) {
				t.Errorf("row %d %s: got %v, want %v", i, f, got[i][f], want[i][f])
			}
		}
		if got[i]["expired"] == true {
			expired++
		}
	}
	if expired != 1 { // dead-on-arrival: expires_at == now is expired
		t.Errorf("%d rows flagged expired at NOW, want 1", expired)
	}
	// Text mode, and stats, on the same file: read-only too.
	if r := runMain(t, nil, "", []string{"--db", db, "--read-only", "--now", "1767312000000", "-o", "json", "stats", "--check"}); r.code != 0 ||
		!strings.Contains(r.stdout, `{"seq":63,"rows":60,"live":59,"expired":1,"undecodable":0,"invalidValues":0,"checked":true,"journalMode":"delete"`) {
		t.Errorf("stats: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	if after := fileSum(t, db); after != before {
		t.Fatalf("public-reference.db changed after stats")
	}
}

// TestDumpLoadRoundTrip dumps a store with every key type, TTL rows and an
// expired row, loads the dump into a fresh store, and compares the dumps:
// same rows, hex, values and expiry (stamps are new).
func TestDumpLoadRoundTrip(t *testing.T) {
	eachBackend(t, func(t *testing.T, src *cli, b storetest.Backend) {
		seed := strings.Join([]string{
			`{"key":"[\"users\", \"alice\"]","value":{"plan":"pro","n":[1,2.5,"<&>\u2028"]}}`,
			`{"key":"[\"orders\", 42, 7n, true, b\"00ff\"]","value":"x"}`,
			`{"key":"[-0, Infinity, -Infinity, 1e-7]","value":null}`,
			`{"key":"[b\"\", \"\"]","value":[]}`,
			`{"key":"[]","value":{}}`,
			`{"key":"[\"ttl\", \"later\"]","value":1,"expiresAt":1767312060000}`,
			`{"key":"[\"ttl\", \"gone\"]","value":2,"expiresAt":1767311000000}`,
		}, "\n")
		if r := src.runIn(seed, "load", "--include-expired", "-"); r.code != 0 {
			t.Fatalf("seed: %d %s", r.code, r.stderr)
		}
		dump := src.must("dump")
		if n := len(lines(dump)); n != 7 {
			t.Fatalf("the source dump has %d rows, want 7:\n%s", n, dump)
		}
		dst := &cli{t: t, url: b.URL(t), now: storetest.T0}
		r := dst.runIn(dump, "-o", "json", "load", "--include-expired", "-")
		if r.code != 0 || r.stdout != `{"loaded":7,"skipped":0,"batches":1,"expired":0,"existing":0,"undecodable":0}`+"\n" {
			t.Fatalf("load: exit %d, %s %s", r.code, r.stdout, r.stderr)
		}
		got, want := decodeLines(t, dst.must("dump")), decodeLines(t, dump)
		for i := range want {
			delete(got[i], "versionstamp")
			delete(want[i], "versionstamp")
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("row %d:\n got %v\nwant %v", i, got[i], want[i])
			}
		}
		// Without --include-expired the expired row stays out.
		fresh := &cli{t: t, url: b.URL(t), now: storetest.T0}
		if out := fresh.runIn(dump, "load", "-"); out.stdout != "loaded 6 rows in 1 batch; skipped 1 (1 expired)\n" {
			t.Errorf("load without --include-expired: %q %s", out.stdout, out.stderr)
		}
	})
}

// TestBinary builds kvdeck and runs it as a user would: key encode of a key
// with every part type equals the codec's encoding, and key decode prints
// it back canonically.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "kvdeck")
	build := exec.Command("go", "build", "-o", bin, "kvdeck")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = t.TempDir()
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}
	// ["users", 42, 7n, true, b"00ff"], encoded by hand part by part: a
	// type byte, then the part: a string 02 UTF-8 00, a number 03 and its
	// float64 with the sign bit flipped, 7n 04 and eight bytes, true 05 01,
	// bytes 01 with each 00 written 00ff, then 00.
	const want = "02" + "757365727300" + "03" + "c045000000000000" + "04" + "8000000000000007" + "0501" + "01" + "00ff" + "ff00"
	if enc := hex.EncodeToString(codec.MustEncode(codec.Key{codec.String("users"), codec.Number(42), codec.Bigint(7), codec.Bool(true), codec.Bytes([]byte{0, 0xff})})); enc != want {
		t.Fatalf("the codec encodes the key as %s, the reference as %s", enc, want)
	}
	out, stderr, code := run("key", "encode", `["users", 42, 7n, true, b"00ff"]`)
	if code != 0 || out != want+"\n" {
		t.Fatalf("key encode: exit %d, %q %s; want %s", code, out, stderr, want)
	}
	out, stderr, code = run("key", "decode", want)
	if code != 0 || out != `["users", 42, 7n, true, b"00ff"]`+"\n" {
		t.Fatalf("key decode: exit %d, %q %s", code, out, stderr)
	}
	if _, stderr, code = run("key", "decode", "02ff"); code != 2 || !strings.HasPrefix(stderr, "kvdeck: ") {
		t.Fatalf("key decode 02ff: exit %d, %q", code, stderr)
	}
	if out, _, code = run("-o", "json", "version"); code != 0 || !strings.Contains(out, `"goVersion":"go`) {
		t.Fatalf("version: exit %d, %q", code, out)
	}
}

// TestLoadIfAbsentConcurrent runs two --if-absent loads of the same keys
// with different values at once: every key is written by exactly one of
// them (the per-key checks hold under the race), and their counts add up.
func TestLoadIfAbsentConcurrent(t *testing.T) {
	const n = 1500
	eachBackend(t, func(t *testing.T, c *cli, b storetest.Backend) {
		input := func(who string) string {
			var sb strings.Builder
			for i := range n {
				fmt.Fprintf(&sb, `{"key":"[\"race\", %d]","value":%q}`+"\n", i, who)
			}
			return sb.String()
		}
		var wg sync.WaitGroup
		results := make([]result, 2)
		for i, who := range []string{"A", "B"} {
			wg.Go(func() {
				results[i] = c.runIn(input(who), "-o", "json", "load", "--if-absent", "--batch", "100", "-")
			})
		}
		wg.Wait()
		var loaded, existing int
		for _, r := range results {
			var s loadJSON
			if r.code != 0 || json.Unmarshal([]byte(r.stdout), &s) != nil {
				t.Fatalf("load: exit %d, %q %s", r.code, r.stdout, r.stderr)
			}
			loaded += int(s.Loaded)
			existing += int(s.Existing)
		}
		if loaded != n || existing != n {
			t.Errorf("loaded %d + existing %d; want %d each", loaded, existing, n)
		}
		rows := decodeLines(t, c.must("dump"))
		if len(rows) != n {
			t.Fatalf("%d rows, want %d", len(rows), n)
		}
		stats := c.must("-o", "json", "stats")
		if !strings.Contains(stats, `"rows":1500,`) {
			t.Errorf("stats: %s", stats)
		}
	})
}

// TestFileInputs reads atomic and load input from files (load reads a
// regular file twice: validate, then write) as well as stdin.
func TestFileInputs(t *testing.T) {
	eachBackend(t, func(t *testing.T, c *cli, b storetest.Backend) {
		doc := writeFile(t, "commit.json", `{"mutations":[{"type":"set","key":"[\"f\", 1]","value":1}]}`)
		if out := c.must("atomic", doc); out != "ok 00000000000000000001\n" {
			t.Fatalf("atomic FILE: %q", out)
		}
		rows := writeFile(t, "rows.jsonl", `{"key":"[\"f\", 2]","value":2}`+"\r\n"+`{"key":"[\"f\", 3]","value":3}`)
		if out := c.must("load", "--batch", "1", rows); out != "loaded 2 rows in 2 batches\n" {
			t.Fatalf("load FILE: %q", out)
		}
		if out := c.must("list", `["f"]`); out != "[\"f\", 1]  1  v=00000000000000000001\n[\"f\", 2]  2  v=00000000000000000002\n[\"f\", 3]  3  v=00000000000000000003\n" {
			t.Fatalf("list: %q", out)
		}
		bad := writeFile(t, "bad.jsonl", `{"key":"[\"f\", 4]","value":4}`+"\n"+`{"key":"[\"f\", 5]","value":`+"\n")
		if r := c.run("load", bad); r.code != CodeError || !strings.Contains(r.stderr, "bad.jsonl: 1 malformed line, nothing written:\n  line 2: invalid JSON") {
			t.Fatalf("load of a malformed file: exit %d, %q", r.code, r.stderr)
		}
		if r := c.run("get", `["f", 4]`); r.code != CodeNotDone {
			t.Fatalf("a malformed file was half-written: %q", r.stdout)
		}
		if r := c.run("atomic", filepath.Join(t.TempDir(), "missing.json")); r.code != CodeError || !strings.Contains(r.stderr, "no such file") {
			t.Fatalf("atomic of a missing file: exit %d, %q", r.code, r.stderr)
		}
	})
}
