package store_test

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// oddRow is a row a foreign writer left: ver or expires_at of a type the
// reference never writes.
type oddRow struct {
	key, ver, exp string // key text; ver and expires_at as SQL literals
	// what kvdeck must read
	wantVer int64
	wantExp *int64 // nil: never expires
	// malformed is a word the Malformed note must contain ("" = not malformed)
	malformed string
}

func (r oddRow) insert(t *testing.T) string {
	t.Helper()
	return fmt.Sprintf("INSERT INTO kv (k, v, ver, expires_at) VALUES (X'%s', '1', %s, %s)",
		hex.EncodeToString(codec.MustEncode(storetest.Key(t, r.key))), r.ver, r.exp)
}

func ms(v int64) *int64 { return &v }

// TestOddRowsAreRead: one row whose ver or expires_at is REAL, TEXT or a
// BLOB (a JS writer adding a fractional expireIn writes a REAL expiry) must
// not break a listing: every read path reads it, whole REALs as integers,
// the others flagged as malformed with what SQL makes of them (a TEXT or
// BLOB expiry sorts after every number, so the row never expires), and
// Inspect (doctor) reports them. Failed before the fix with a raw
// "sql: Scan error" from List, Dump, Stats, Children, Sweep and Inspect.
func TestOddRowsAreRead(t *testing.T) {
	now := storetest.T0
	rows := []oddRow{
		{key: `["odd", "real-expiry"]`, ver: "1", exp: fmt.Sprintf("%d.5", now+1000), wantVer: 1, wantExp: ms(now + 1001), malformed: "REAL"},
		{key: `["odd", "text-expiry"]`, ver: "1", exp: "'soon'", wantVer: 1, malformed: "TEXT"},
		{key: `["odd", "blob-expiry"]`, ver: "1", exp: "X'00ff'", wantVer: 1, malformed: "BLOB"},
		{key: `["odd", "real-ver"]`, ver: "2.5", exp: "NULL", malformed: "REAL"},
		{key: `["odd", "text-ver"]`, ver: "'seven'", exp: "NULL", malformed: "TEXT"},
		{key: `["dwk_lease", "C", "ab"]`, ver: "1", exp: fmt.Sprintf("%d.25", now+30000), wantVer: 1, wantExp: ms(now + 30001), malformed: "REAL"},
	}
	// A table without column types keeps whole REALs as REAL (the
	// reference's INTEGER affinity would turn them into integers).
	typeless := []oddRow{
		{key: `["odd", "whole-real-expiry"]`, ver: "3.0", exp: fmt.Sprintf("%d.0", now+5000), wantVer: 3, wantExp: ms(now + 5000)},
		{key: `["odd", "whole-real-past"]`, ver: "4.0", exp: fmt.Sprintf("%d.0", now-5000), wantVer: 4, wantExp: ms(now - 5000)},
		{key: `["odd", "text-number"]`, ver: "'5'", exp: fmt.Sprintf("'%d'", now-5000), malformed: "TEXT"},
	}
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		for _, schema := range []string{"reference", "typeless"} {
			t.Run(schema, func(t *testing.T) {
				url := b.URL(t)
				clock := storetest.NewClock(now)
				s := storetest.Open(t, url, store.Options{Clock: clock.Now})
				mustSet(t, s, `["odd", "plain"]`, `1`, nil)
				odd := rows
				stmts := []string{}
				if schema == "typeless" {
					odd = typeless
					stmts = append(stmts, "ALTER TABLE kv RENAME TO kv_old",
						"CREATE TABLE kv (k BLOB PRIMARY KEY, v TEXT NOT NULL, ver NOT NULL, expires_at)",
						"INSERT INTO kv SELECT * FROM kv_old", "DROP TABLE kv_old")
				}
				for _, r := range odd {
					stmts = append(stmts, r.insert(t))
				}
				storetest.Exec(t, url, stmts...)
				checkOddRows(t, s, odd, now)
			})
		}
	})
}

func checkOddRows(t *testing.T, s *store.Store, odd []oddRow, now int64) { //nolint:thelper // a test body shared by two tests: failures point into its checks
	ctx := storetest.Ctx(t)
	var dumped []store.Entry
	if err := s.Dump(ctx, nil, func(e store.Entry) error { dumped = append(dumped, e); return nil }); err != nil {
		t.Fatalf("dump: %v", err)
	}
	if len(dumped) != len(odd)+1 {
		t.Fatalf("dump read %d rows, want %d", len(dumped), len(odd)+1)
	}
	malformed := 0
	for _, r := range odd {
		k := storetest.Key(t, r.key)
		e, found, err := s.GetRaw(ctx, codec.MustEncode(k))
		if err != nil || !found {
			t.Fatalf("GetRaw %s: %v %v", r.key, found, err)
		}
		if e.Ver != r.wantVer || !sameExpiry(e.ExpiresAt, r.wantExp) {
			t.Errorf("%s: ver %d expires %v, want %d %v", r.key, e.Ver, fmtExp(e.ExpiresAt), r.wantVer, fmtExp(r.wantExp))
		}
		if r.malformed == "" && e.Malformed != "" || !strings.Contains(e.Malformed, r.malformed) {
			t.Errorf("%s: Malformed = %q, want it to name %q", r.key, e.Malformed, r.malformed)
		}
		if r.malformed != "" {
			malformed++
		}
		// Get and GetMany see the row exactly when SQL's liveness rule does.
		live := r.wantExp == nil || *r.wantExp > now
		if _, found, err := s.Get(ctx, k); err != nil || found != live {
			t.Errorf("Get %s: found %v, want %v (%v)", r.key, found, live, err)
		}
		if got, err := s.GetMany(ctx, []codec.Key{k}); err != nil || (got[0] != nil) != live {
			t.Errorf("GetMany %s: %v %v", r.key, got, err)
		}
		if e.Live(now) != live {
			t.Errorf("%s: Entry.Live %v, SQL says %v", r.key, e.Live(now), live)
		}
	}
	if _, err := s.List(ctx, store.ListOptions{Prefix: storetest.Key(t, `["odd"]`)}); err != nil {
		t.Errorf("list: %v", err)
	}
	if _, err := s.Stats(ctx, now); err != nil {
		t.Errorf("stats: %v", err)
	}
	if _, err := s.Children(ctx, storetest.Key(t, `["odd"]`), store.ChildrenOptions{}); err != nil {
		t.Errorf("children: %v", err)
	}
	if _, err := s.Children(ctx, nil, store.ChildrenOptions{}); err != nil {
		t.Errorf("children of the root: %v", err)
	}
	if _, err := s.Sweep(ctx, store.SweepOptions{Now: now, DryRun: true}); err != nil {
		t.Errorf("sweep --dry-run: %v", err)
	}
	if _, _, err := coord.InspectLeases(ctx, s, now); err != nil {
		t.Errorf("lease list: %v", err)
	}
	fs, err := coord.Doctor(ctx, s, now)
	if err != nil {
		t.Fatalf("doctor: %v", err)
	}
	reported := false
	for _, f := range fs {
		if f.Code == "store.malformed-row" {
			reported = true
			if !strings.Contains(f.Message, fmt.Sprintf("%d row(s)", malformed)) {
				t.Errorf("doctor: %s", f.Message)
			}
		}
	}
	if reported != (malformed > 0) {
		t.Errorf("doctor reported malformed rows: %v, want %v: %v", reported, malformed > 0, fs)
	}
	// A real sweep deletes exactly what SQL holds expired, and survives the rest.
	if _, err := s.Sweep(ctx, store.SweepOptions{Now: now + 2000, Pause: -1}); err != nil {
		t.Errorf("sweep: %v", err)
	}
}

func sameExpiry(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func fmtExp(p *int64) string {
	if p == nil {
		return "never"
	}
	return fmt.Sprint(*p)
}
