package store_test

import (
	"errors"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestSetManyIsACommitOfSets: SetMany writes what Commit would (one stamp
// for every row, seq + 1, expiries, a later set of a key winning, values
// normalised) and nothing at all when a value is not JSON.
func TestSetManyIsACommitOfSets(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		ttl := time.Minute
		mustSet(t, s, `["m", 1]`, `"old"`, nil)
		seq0, err := s.Seq(storetest.Ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		k := func(i int) codec.Key { return codec.Key{codec.String("m"), codec.Number(float64(i))} }
		sets := []store.Mutation{
			{Type: store.MutationSet, Key: k(1), Value: []byte(`{ "a" : 1.0 }`)},
			{Type: store.MutationSet, Key: k(2), Value: []byte(`2`), ExpireIn: &ttl},
			{Type: store.MutationSet, Key: k(3), Value: []byte(`3`)},
			{Type: store.MutationSet, Key: k(3), Value: []byte(`"last wins"`)},
		}
		res, err := s.SetMany(storetest.Ctx(t), sets)
		if err != nil || !res.OK || res.Versionstamp != codec.FormatStamp(seq0+1) {
			t.Fatalf("SetMany: %+v %v (seq was %d)", res, err, seq0)
		}
		for i, want := range map[int]string{1: `{"a":1}`, 2: `2`, 3: `"last wins"`} {
			e, found, err := s.Get(storetest.Ctx(t), k(i))
			if err != nil || !found || string(e.Value) != want || e.Versionstamp() != res.Versionstamp {
				t.Errorf("row %d: %+v %v %v, want %s at %s", i, e, found, err, want, res.Versionstamp)
			}
			if i == 2 && (e.ExpiresAt == nil || *e.ExpiresAt != c.Now()+ttl.Milliseconds()) {
				t.Errorf("row 2 expires at %v", e.ExpiresAt)
			}
		}
		_, err = s.SetMany(storetest.Ctx(t), []store.Mutation{{Type: store.MutationSet, Key: k(4), Value: []byte(`4`)}, {Type: store.MutationSet, Key: k(5), Value: []byte(`{`)}})
		if !errors.Is(err, store.ErrInvalidValue) {
			t.Fatalf("a value that is not JSON: %v", err)
		}
		if _, found, _ := s.Get(storetest.Ctx(t), k(4)); found {
			t.Error("a refused SetMany wrote a row")
		}
		if seq, _ := s.Seq(storetest.Ctx(t)); seq != seq0+1 {
			t.Errorf("seq %d after a refused SetMany, want %d", seq, seq0+1)
		}
	})
}
