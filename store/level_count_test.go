package store_test

import (
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestCountChildren: the bounded count of a level's distinct children
// agrees with Children's pages, stops at the bound, and counts nothing
// under an empty prefix (Browse showed loaded rows as
// the level's size).
func TestCountChildren(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		ctx := storetest.Ctx(t)
		var muts []store.Mutation
		for i := range 120 {
			// Each child has a row and one below it: rows are not children.
			k := codec.Key{codec.String("lvl"), codec.Number(float64(i))}
			muts = append(muts, store.Mutation{Type: store.MutationSet, Key: k, Value: []byte(`1`)},
				store.Mutation{Type: store.MutationSet, Key: append(k, codec.String("x")), Value: []byte(`1`)})
		}
		muts = append(muts, store.Mutation{Type: store.MutationSet, Key: codec.Key{codec.String("other")}, Value: []byte(`1`)})
		if _, err := s.Commit(ctx, nil, muts); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			prefix codec.Key
			bound  int
			n      int64
			capped bool
		}{
			{codec.Key{codec.String("lvl")}, 0, 120, false},
			{codec.Key{codec.String("lvl")}, 120, 120, false},
			{codec.Key{codec.String("lvl")}, 119, 119, true},
			{codec.Key{codec.String("lvl")}, 10, 10, true},
			{nil, 0, 2, false},
			{codec.Key{codec.String("none")}, 0, 0, false},
			{codec.Key{codec.String("lvl"), codec.Number(3)}, 0, 1, false},
		} {
			n, capped, err := s.CountChildren(ctx, tc.prefix, tc.bound)
			if err != nil || n != tc.n || capped != tc.capped {
				t.Errorf("CountChildren(%s, %d) = %d, %v, %v; want %d, %v", codec.Format(tc.prefix), tc.bound, n, capped, err, tc.n, tc.capped)
			}
		}
	})
}
