package store_test

import (
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestCompletingAStoreKeepsStampsAscending: a database that has kv but
// lost kv_meta is completed by a write with seq at the highest stamp in kv
// (a REAL one counts as its ceiling), so the write's stamp is above every
// existing one (seq started at 0 and new stamps went
// below old ones).
func TestCompletingAStoreKeepsStampsAscending(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		storetest.Exec(t, url,
			`CREATE TABLE kv (k BLOB PRIMARY KEY, v TEXT NOT NULL, ver INTEGER NOT NULL, expires_at INTEGER)`,
			`INSERT INTO kv (k, v, ver, expires_at) VALUES (x'02610000', '1', 41, NULL), (x'02620000', '2', 50.5, NULL), (x'02630000', '3', 'x', NULL)`)
		s, err := store.Open(storetest.Ctx(t), url, store.Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stamp, err := s.Set(storetest.Ctx(t), storetest.Key(t, `["new"]`), []byte(`1`), nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := "00000000000000000052"; stamp != want {
			t.Errorf("the first stamp after completing the store is %s; want %s (above 50.5)", stamp, want)
		}
	})
}

// TestCensusSeesStampsAboveSeq: the census reads the highest stamp and
// seq in the same statements, so doctor can flag rows above seq (a database
// completed with seq 0 issued stamps below existing
// ones and doctor said nothing). A healthy store has MaxVer == seq.
func TestCensusSeesStampsAboveSeq(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{Create: true})
		for _, k := range []string{`["a"]`, `["b"]`} {
			if _, err := s.Set(storetest.Ctx(t), storetest.Key(t, k), []byte(`1`), nil); err != nil {
				t.Fatal(err)
			}
		}
		st, err := s.Census(storetest.Ctx(t), store.CensusOptions{Check: true})
		if err != nil {
			t.Fatal(err)
		}
		if st.SeqAfter == nil || st.MaxVer != 2 || *st.SeqAfter != 2 {
			t.Fatalf("healthy store: MaxVer %d, SeqAfter %v; want 2 and 2", st.MaxVer, st.SeqAfter)
		}
		storetest.Exec(t, url, `UPDATE kv_meta SET seq = 1 WHERE id = 0`)
		if st, err = s.Census(storetest.Ctx(t), store.CensusOptions{Check: true}); err != nil {
			t.Fatal(err)
		}
		if st.SeqAfter == nil || st.MaxVer != 2 || *st.SeqAfter != 1 {
			t.Errorf("seq behind the rows: MaxVer %d, SeqAfter %v; want 2 above 1", st.MaxVer, st.SeqAfter)
		}
	})
}
