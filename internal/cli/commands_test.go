package cli

import (
	"strings"
	"testing"

	"kvdeck/internal/storetest"
)

// Tagged JSON of keys the table uses, spelled out so that the expected
// output does not come from the code under test.
const (
	tUsersAlice  = `[{"type":"string","value":"users"},{"type":"string","value":"alice"}]`
	tUsersNobody = `[{"type":"string","value":"users"},{"type":"string","value":"nobody"}]`
	tK           = `[{"type":"string","value":"k"}]`
	tA           = `[{"type":"string","value":"a"}]`
	tC           = `[{"type":"string","value":"c"}]`
	tL2          = `[{"type":"string","value":"l"},{"type":"number","value":2}]`
	tTGone       = `[{"type":"string","value":"t"},{"type":"string","value":"gone"}]`
	tTLive       = `[{"type":"string","value":"t"},{"type":"string","value":"live"}]`
)

// step is one run of kvdeck in a case; every step of a case shares one
// database.
type step struct {
	args   []string
	stdin  string
	at     int64 // the clock (--now); 0 means storetest.T0
	code   int
	out    string   // exact stdout, unless outHas is set
	outHas []string // substrings stdout must hold
	errHas string   // a substring of stderr; "" means stderr must be empty
}

func s(args ...string) step { return step{args: args} }

// ok expects exit 0 and exactly out on stdout.
func (st step) ok(out string) step { st.code, st.out = 0, out; return st }

// text expects exit 0 and exactly these lines on stdout.
func (st step) text(lines ...string) step { return st.ok(strings.Join(lines, "\n") + "\n") }

// notDone expects exit 1 and exactly out on stdout.
func (st step) notDone(out string) step { st.code, st.out = 1, out; return st }

// has expects exit 0 and stdout holding every one of subs.
func (st step) has(subs ...string) step { st.code, st.outHas = 0, subs; return st }

// refused expects exit 2, nothing on stdout and sub in the error.
func (st step) refused(sub string) step { st.code, st.out, st.errHas = 2, "", sub; return st }

// stderr expects sub on stderr.
func (st step) stderr(sub string) step { st.errHas = sub; return st }

// input gives the step a stdin.
func (st step) input(in string) step { st.stdin = in; return st }

// clock runs the step offset milliseconds after storetest.T0.
func (st step) clock(offset int64) step { st.at = storetest.T0 + offset; return st }

// commandCases is the table every backend runs: text and JSON output of
// every command, exit codes, bad input, read-only refusals.
var commandCases = []struct {
	name  string
	steps []step
}{
	{"set and get", []step{
		s("set", `["users", "alice"]`, `{"plan":"pro"}`).ok("00000000000000000001\n"),
		s("get", `["users","alice"]`).text(`["users", "alice"]  {"plan":"pro"}  v=00000000000000000001`),
		s("-o", "json", "get", `["users", "alice"]`).ok(`{"key":` + tUsersAlice + `,"value":{"plan":"pro"},"versionstamp":"00000000000000000001","expiresAt":null}` + "\n"),
		s("get", tUsersAlice).text(`["users", "alice"]  {"plan":"pro"}  v=00000000000000000001`),
		s("-o", "json", "set", `["k"]`, `{"b":1, "a":[1e3, -0, "<&>"]}`).ok(`{"ok":true,"versionstamp":"00000000000000000002"}` + "\n"),
		s("-o", "json", "get", `["k"]`).ok(`{"key":` + tK + `,"value":{"b":1,"a":[1000,0,"<&>"]},"versionstamp":"00000000000000000002","expiresAt":null}` + "\n"),
		s("set", `["k"]`, "-").input(" \"from stdin\"\n").ok("00000000000000000003\n"),
		s("set", `["k"]`, "--", "-5").ok("00000000000000000004\n"),
		s("get", `["k"]`).text(`["k"]  -5  v=00000000000000000004`),
	}},
	{"get absent", []step{
		s("get", `["users", "nobody"]`).notDone(`["users", "nobody"]  (absent)` + "\n"),
		s("-o", "json", "get", `["users", "nobody"]`).notDone(`{"key":` + tUsersNobody + `,"value":null,"versionstamp":null,"expiresAt":null}` + "\n"),
	}},
	{"expiry", []step{
		s("set", `["k"]`, "1", "--expire-in", "45s").ok("00000000000000000001\n"),
		s("get", `["k"]`).text(`["k"]  1  v=00000000000000000001  expires=2026-01-02T00:00:45.000Z`),
		s("-o", "json", "get", `["k"]`).ok(`{"key":` + tK + `,"value":1,"versionstamp":"00000000000000000001","expiresAt":1767312045000}` + "\n"),
		s("get", `["k"]`).clock(44999).text(`["k"]  1  v=00000000000000000001  expires=2026-01-02T00:00:45.000Z`),
		s("get", `["k"]`).clock(45000).notDone(`["k"]  (absent)` + "\n"),
		s("set", `["k"]`, "2", "--expire-in", "0s").ok("00000000000000000002\n").stderr("already expired"),
		s("get", `["k"]`).notDone(`["k"]  (absent)` + "\n"),
		s("set", `["k"]`, "2", "--expire-in", "1.5ms").refused("whole milliseconds"),
		s("set", `["k"]`, "2", "--expire-in", "5x").refused("Go duration"),
	}},
	{"delete", []step{
		s("set", `["k"]`, "true").ok("00000000000000000001\n"),
		s("delete", `["k"]`).text(`deleted ["k"]`),
		s("get", `["k"]`).notDone(`["k"]  (absent)` + "\n"),
		s("-o", "json", "delete", `["k"]`).ok(`{"ok":true,"key":` + tK + "}\n"),
	}},
	{"list", []step{
		s("set", `["a"]`, "1").ok("00000000000000000001\n"),
		s("set", `["a", 1]`, "2").ok("00000000000000000002\n"),
		s("set", `["a", 2]`, "3").ok("00000000000000000003\n"),
		s("set", `["a", 3]`, "4", "--expire-in", "1s").ok("00000000000000000004\n"),
		s("set", `["b"]`, `"x"`).ok("00000000000000000005\n"),
		s("list").text(
			`["a"]  1  v=00000000000000000001`,
			`["a", 1]  2  v=00000000000000000002`,
			`["a", 2]  3  v=00000000000000000003`,
			`["a", 3]  4  v=00000000000000000004  expires=2026-01-02T00:00:01.000Z`,
			`["b"]  "x"  v=00000000000000000005`),
		s("list", `["a"]`, "--start", `["a", 2]`).text(
			`["a", 2]  3  v=00000000000000000003`,
			`["a", 3]  4  v=00000000000000000004  expires=2026-01-02T00:00:01.000Z`),
		s("list", `["a"]`, "--end", `["a", 2]`).text(
			`["a"]  1  v=00000000000000000001`,
			`["a", 1]  2  v=00000000000000000002`),
		s("list", "--limit", "2", "--reverse").text(
			`["b"]  "x"  v=00000000000000000005`,
			`["a", 3]  4  v=00000000000000000004  expires=2026-01-02T00:00:01.000Z`),
		s("list", `["a"]`).clock(1000).text(
			`["a"]  1  v=00000000000000000001`,
			`["a", 1]  2  v=00000000000000000002`,
			`["a", 2]  3  v=00000000000000000003`),
		s("-o", "json", "list", `["a"]`, "--limit", "1").ok(`{"key":` + tA + `,"value":1,"versionstamp":"00000000000000000001","expiresAt":null}` + "\n"),
		s("list", `["nothing"]`).ok(""),
		s("list", "--limit=-1").refused("--limit -1"),
		s("list", `["a"`).refused("column 5"),
	}},
	{"dump", []step{
		s("set", `["t", "live"]`, `{"v":1}`).ok("00000000000000000001\n"),
		s("set", `["t", "gone"]`, "2", "--expire-in", "1ms").ok("00000000000000000002\n"),
		s("dump").clock(1).ok(
			`{"key":` + tTGone + `,"hex":"02740002676f6e6500","value":2,"versionstamp":"00000000000000000002","expiresAt":1767312000001,"expired":true}` + "\n" +
				`{"key":` + tTLive + `,"hex":"027400026c69766500","value":{"v":1},"versionstamp":"00000000000000000001","expiresAt":null,"expired":false}` + "\n"),
		s("dump", `["t", "gone"]`).ok(
			`{"key":` + tTGone + `,"hex":"02740002676f6e6500","value":2,"versionstamp":"00000000000000000002","expiresAt":1767312000001,"expired":false}` + "\n"),
		s("-o", "text", "dump").clock(1).text(
			`["t", "gone"]  2  v=00000000000000000002  expires=2026-01-02T00:00:00.001Z  expired`,
			`["t", "live"]  {"v":1}  v=00000000000000000001`),
	}},
	{"atomic", []step{
		s("atomic", "-").input(`{"checks":[{"key":"[\"c\"]","versionstamp":null}],
			"mutations":[{"type":"set","key":"[\"c\"]","value":{"n":1},"expireIn":60000},
			             {"type":"set","key":[{"type":"string","value":"d"}],"value":2,"expireIn":"1m"}]}`).
			ok("ok 00000000000000000001\n"),
		s("-o", "json", "get", `["c"]`).ok(`{"key":` + tC + `,"value":{"n":1},"versionstamp":"00000000000000000001","expiresAt":1767312060000}` + "\n"),
		s("get", `["d"]`).text(`["d"]  2  v=00000000000000000001  expires=2026-01-02T00:01:00.000Z`),
		s("atomic", "-").input(`{"checks":[{"key":"[\"c\"]","versionstamp":null}],"mutations":[{"type":"set","key":"[\"c\"]","value":0}]}`).
			notDone("failed\ncheck 0 [\"c\"]: expected absent, actual 00000000000000000001\n"),
		s("-o", "json", "atomic", "-").input(`{"checks":[{"key":"[\"d\"]","versionstamp":"00000000000000000001"},{"key":"[\"c\"]","versionstamp":"00000000000000000007"}],"mutations":[]}`).
			notDone(`{"ok":false,"failedChecks":[{"index":1,"key":` + tC + `,"expected":"00000000000000000007","actual":"00000000000000000001"}]}` + "\n"),
		s("atomic", "-").input(`{"checks":[{"key":"[\"c\"]","versionstamp":"00000000000000000001"}],"mutations":[{"type":"delete","key":"[\"c\"]"}]}`).
			ok("ok (no set, no versionstamp)\n"),
		s("-o", "json", "atomic", "-").input(`{"mutations":[{"type":"delete","key":"[\"d\"]"}]}`).ok(`{"ok":true,"versionstamp":null}` + "\n"),
		s("get", `["c"]`).notDone(`["c"]  (absent)` + "\n"),
		s("atomic", "-").input(`{"checks":[{"key":"[\"c\"]","versionstamp":"12"}],"mutations":[{"type":"set","key":"[\"x\"]","value":1}]}`).
			refused("checks[0].versionstamp: codec: invalid versionstamp \"12\": want exactly 20 decimal digits"),
		s("atomic", "-").input(`{"mutations":[{"type":"set","key":"[\"x\"]","value":1},{"type":"set","key":"[\"y\"]","value":NaN}]}`).
			refused("invalid JSON"),
		s("atomic", "-").input(`{"mutations":[{"type":"set","key":"[\"x\"]","value":1},{"type":"set","key":"[\"y\", 9223372036854775808n]","value":1}]}`).
			refused("mutations[1].key"),
		s("atomic", "-").input(`{"mutations":[{"type":"set","key":"[\"x\"]","value":1,"expireAt":5}]}`).
			refused(`mutations[0]: unknown field "expireAt"`),
		s("atomic", "-").input(`{"mutations":[{"type":"sum","key":"[\"x\"]","value":1}]}`).
			refused(`mutations[0].type: want "set" or "delete"`),
		s("atomic", "-").input(`{"mutations":[]} {}`).refused("unexpected text after"),
		s("get", `["x"]`).notDone(`["x"]  (absent)` + "\n"),
		s("-o", "json", "stats").has(`"seq":1,`),
	}},
	{"sweep", []step{
		s("set", `["tmp", "a"]`, "1", "--expire-in", "1s").ok("00000000000000000001\n"),
		s("set", `["tmp", "b"]`, "2", "--expire-in", "2s").ok("00000000000000000002\n"),
		s("set", `["keep"]`, "3", "--expire-in", "1h").ok("00000000000000000003\n"),
		s("sweep", "--dry-run").clock(1500).text(
			`["tmp", "a"]  1  v=00000000000000000001  expires=2026-01-02T00:00:01.000Z  expired`,
			`would sweep 1 row (dry run); next expiry 2026-01-02T00:00:02.000Z`),
		s("-o", "json", "sweep").clock(2000).has(`{"swept":2,"remaining":0,"elapsedMs":`, `"batches":1,"nextExpiry":1767315600000,"dryRun":false}`),
		s("sweep").clock(2000).has("swept 0 rows in 0 batches", "0 expired rows remain; next expiry 2026-01-02T01:00:00.000Z"),
		s("sweep", "--prefix", `["keep"]`, "--batch", "1").clock(3600000).has("swept 1 row in 1 batch", "no row expires later"),
		s("-o", "text", "dump").ok(""),
		s("sweep", "--batch=-1").refused("--batch -1"),
	}},
	{"stats", []step{
		s("set", `["a", 1]`, "1").ok("00000000000000000001\n"),
		s("set", `["a", 2]`, "2", "--expire-in", "1s").ok("00000000000000000002\n"),
		s("set", `[7n]`, "3").ok("00000000000000000003\n"),
		s("set", `[]`, "4").ok("00000000000000000004\n"),
		s("-o", "json", "stats", "--check").clock(1000).has(`"invalidValues":0,"checked":true,"journalMode":`),
		s("-o", "json", "stats").clock(1000).has(
			`{"seq":4,"rows":4,"live":3,"expired":1,"undecodable":0,"invalidValues":null,"checked":false,"journalMode":`,
			`"byPrefix":[{"prefix":[],"rows":1,"live":1,"expired":0,"bytes":1},`+
				`{"prefix":`+tA+`,"rows":2,"live":1,"expired":1,"bytes":26},`+
				`{"prefix":[{"type":"bigint","value":"7"}],"rows":1,"live":1,"expired":0,"bytes":10}]}`),
		s("stats").clock(1000).has("seq             4\nrows            4\nlive            3\nexpired         1\n",
			"invalid values  not checked (stats --check)\n",
			"PREFIX  ROWS  LIVE  EXPIRED  BYTES\n[]         1     1        0      1\n\"a\"        2     1        1     26\n7n         1     1        0     10\n"),
	}},
	{"load", []step{
		s("load", "-").input(
			`{"key":"[\"l\", 1]","value":{"x":1}}` + "\n" +
				`{"key":` + tL2 + `,"hex":"026c0003c000000000000000","value":[1,2],"versionstamp":"00000000000000000042","expiresAt":1767312060000,"expired":false}` + "\n" +
				`{"key":"[\"l\", 3]","value":null,"expiresAt":1767311990000}` + "\n\n" +
				`{"meta":{"seq":63}}` + "\n").
			text("loaded 2 rows in 1 batch; skipped 1 (1 expired)"),
		s("-o", "json", "get", `["l", 2]`).ok(`{"key":` + tL2 + `,"value":[1,2],"versionstamp":"00000000000000000001","expiresAt":1767312060000}` + "\n"),
		s("-o", "json", "load", "--if-absent", "-").input(`{"key":"[\"l\", 1]","value":0}` + "\n" + `{"key":"[\"l\", 4]","value":4}` + "\n" + `{"key":"[\"l\", 4]","value":5}` + "\n").
			ok(`{"loaded":1,"skipped":2,"batches":1,"expired":0,"existing":2,"undecodable":0}` + "\n"),
		s("get", `["l", 1]`).text(`["l", 1]  {"x":1}  v=00000000000000000001`),
		s("get", `["l", 4]`).text(`["l", 4]  4  v=00000000000000000002`),
		s("load", "--include-expired", "--batch", "1", "-").input(`{"key":"[\"l\", 3]","value":null,"expiresAt":1767311990000}` + "\n" + `{"key":"[\"l\", 5]","value":5}` + "\n").
			text("loaded 2 rows in 2 batches"),
		s("-o", "text", "dump", `["l", 3]`).text(`["l", 3]  null  v=00000000000000000003  expires=2026-01-01T23:59:50.000Z  expired`),
		s("load", "-").input(`{"key":"[\"m\", 1]","value":1}` + "\n" + `{"key":"[\"m\", 2]","value":{}}x` + "\n" + `{"key":"[\"m\", 3]","vaule":1}` + "\n").
			refused("-: 2 malformed lines, nothing written:\n  line 2: invalid JSON"),
		s("load", "-").input(`{"key":"[\"m\", 3]","vaule":1}`).refused(`line 1: unknown field "vaule"`),
		// Lines that are not JSON are named as such, whatever letter they
		// start with (a line starting with n was called null, with t or f
		// a boolean).
		s("load", "-").input("nope\nnull\ntruex\n-x\n").
			refused("-: 4 malformed lines, nothing written:\n" +
				"  line 1: want a JSON object, found text that is not JSON: \"nope\"\n" +
				"  line 2: want a JSON object, found null\n" +
				"  line 3: want a JSON object, found text that is not JSON: \"truex\"\n" +
				"  line 4: want a JSON object, found text that is not JSON: \"-x\""),
		s("load", "-").input(`{"key":"[\"m\", 3]","hex":"00","value":1}`).refused(`line 1.hex: "00" does not match the key`),
		s("load", "-").input(`{"key":"[\"m\", 3]"}`).refused(`line 1.value: missing`),
		s("load", "-").input(`{"key":null,"hex":"ff","value":1,"versionstamp":"00000000000000000001","expiresAt":null,"expired":false,"error":"key does not decode"}` + "\n").
			text("loaded 0 rows in 0 batches; skipped 1 (1 undecodable)").stderr("line 1: skipped, the row does not decode"),
		s("get", `["m", 1]`).notDone(`["m", 1]  (absent)` + "\n"),
		s("load", "--batch", "0", "-").refused("--batch 0"),
		s("load", "/nonexistent/in.jsonl").refused("no such file"),
	}},
	{"read-only", []step{
		s("set", `["k"]`, "1", "--expire-in", "1s").ok("00000000000000000001\n"),
		s("--read-only", "set", `["k"]`, "2").refused("store is read-only: set refused"),
		s("--read-only", "delete", `["k"]`).refused("store is read-only: delete refused"),
		s("--read-only", "load", "-").input(`{"key":"[\"n\"]","value":1}`).refused("store is read-only: load refused"),
		s("--read-only", "atomic", "-").input(`{"mutations":[{"type":"set","key":"[\"n\"]","value":1}]}`).refused("store is read-only: atomic commit refused"),
		s("--read-only", "sweep").clock(5000).refused("store is read-only: sweep refused"),
		s("--read-only", "sweep", "--dry-run").clock(5000).has("would sweep 1 row"),
		s("--read-only", "get", `["k"]`).text(`["k"]  1  v=00000000000000000001  expires=2026-01-02T00:00:01.000Z`),
		s("--read-only", "-o", "text", "dump").clock(5000).text(`["k"]  1  v=00000000000000000001  expires=2026-01-02T00:00:01.000Z  expired`),
		s("--read-only", "get", `["n"]`).notDone(`["n"]  (absent)` + "\n"),
	}},
	{"key and version", []step{
		s("key", "encode", `["users", 42]`).text("02757365727300" + "03c045000000000000"),
		s("-o", "json", "key", "encode", `["k"]`).ok(`{"key":` + tK + `,"hex":"026b00"}` + "\n"),
		s("key", "decode", "0x0275736572730003"+"7FFFFFFFFFFFFFFF").text(`["users", -0]`),
		s("-o", "json", "key", "decode", "026B00").ok(`{"key":` + tK + `,"hex":"026b00"}` + "\n"),
		s("key", "decode", "").text("[]"),
		s("key", "decode", "zz").refused("HEX zz: character 1 is not a hex digit"),
		s("key", "decode", "026").refused("odd number of hex digits"),
		s("key", "decode", "0261").refused("HEX: codec: truncated key encoding"),
		s("key", "decode", "06").refused("invalid key encoding tag at byte 0"),
		s("key", "encode", `["a", NaN]`).refused("KEY [\"a\", NaN]: codec: column 7"),
		s("version").has("kvdeck ", "\ngo go1."),
		s("-o", "json", "version").has(`{"version":"`, `"goVersion":"go1.`),
	}},
	{"bad input", []step{
		s("get", `["users", x]`).refused(`KEY ["users", x]: codec: column 11`),
		s("get", `["k", NaN]`).refused("NaN"),
		s("get", `["k", 9223372036854775808n]`).refused("outside the signed 64-bit range"),
		s("set", `["k"]`, "NaN").refused("JSON: codec: invalid JSON at byte 0"),
		s("set", `["k"]`, `{"a":}`).refused("JSON: codec: invalid JSON at byte 5"),
		s("set", `["k"]`, `1 2`).refused("invalid JSON"),
		s("list", "--start", `[b"0"]`).refused("--start"),
		s("get").refused(`get: missing KEY`),
		s("frobnicate").refused("unexpected argument frobnicate"),
		s("--output", "yaml", "get", `["k"]`).refused("--output yaml: want text or json"),
		s("--clock-offset", "5m", "get", `["k"]`).refused("--now and --clock-offset can't be used together"),
		s("get", `["k"]`).notDone(`["k"]  (absent)` + "\n"),
	}},
}

func TestCommands(t *testing.T) {
	eachBackend(t, func(t *testing.T, c *cli, b storetest.Backend) {
		for _, tc := range commandCases {
			t.Run(tc.name, func(t *testing.T) {
				c := &cli{t: t, url: b.URL(t), now: storetest.T0}
				c.must("init")
				for i, st := range tc.steps {
					runStep(t, c, i, st)
				}
			})
		}
	})
}

// runStep runs one step and checks its exit code, stdout and stderr.
func runStep(t *testing.T, c *cli, i int, st step) {
	t.Helper()
	now := st.at
	if now == 0 {
		now = storetest.T0
	}
	r := c.at(now).runIn(st.stdin, st.args...)
	desc := strings.Join(st.args, " ")
	if r.code != st.code {
		t.Fatalf("step %d (%s): exit %d, want %d\nstdout: %s\nstderr: %s", i, desc, r.code, st.code, r.stdout, r.stderr)
	}
	if st.outHas != nil {
		for _, sub := range st.outHas {
			if !strings.Contains(r.stdout, sub) {
				t.Errorf("step %d (%s): stdout does not contain %q:\n%s", i, desc, sub, r.stdout)
			}
		}
	} else if r.stdout != st.out {
		t.Errorf("step %d (%s): stdout\n got: %q\nwant: %q", i, desc, r.stdout, st.out)
	}
	switch {
	case st.errHas == "" && r.stderr != "":
		t.Errorf("step %d (%s): unexpected stderr: %s", i, desc, r.stderr)
	case st.errHas != "" && !strings.Contains(r.stderr, st.errHas):
		t.Errorf("step %d (%s): stderr does not contain %q:\n%s", i, desc, st.errHas, r.stderr)
	case st.errHas != "" && st.code == 2 && !strings.HasPrefix(r.stderr, "kvdeck: "):
		t.Errorf("step %d (%s): stderr is not prefixed with \"kvdeck: \": %s", i, desc, r.stderr)
	}
}
