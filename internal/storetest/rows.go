package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/store"
)

// RowsText is every physical row of s, expired ones included, one line
// each: key hex, value, its ver when withVer, expiry ("none"). What a
// test compares to prove that nothing was written, or that an undo gave
// the rows back (without the stamps, which an undo renews).
func RowsText(t testing.TB, s *store.Store, withVer bool) string {
	t.Helper()
	var out strings.Builder
	err := s.Dump(Ctx(t), nil, func(e store.Entry) error {
		exp := "none"
		if e.ExpiresAt != nil {
			exp = fmt.Sprint(*e.ExpiresAt)
		}
		fmt.Fprintf(&out, "%x %q", e.Raw, e.Value)
		if withVer {
			fmt.Fprintf(&out, " %d", e.Ver)
		}
		fmt.Fprintf(&out, " %s\n", exp)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// SeedExpired writes n rows under [prefix, i] that expired a second
// before the store's clock, a thousand per commit.
func SeedExpired(t testing.TB, s *store.Store, prefix string, n int) {
	t.Helper()
	dead := -time.Second
	for start := 0; start < n; start += 1000 {
		var muts []store.Mutation
		for i := start; i < min(start+1000, n); i++ {
			muts = append(muts, store.Mutation{Type: store.MutationSet, Key: codec.Key{codec.String(prefix), codec.Number(float64(i))},
				Value: []byte(`{"v":1}`), ExpireIn: &dead})
		}
		if _, err := s.Commit(context.Background(), nil, muts); err != nil {
			t.Fatal(err)
		}
	}
}
