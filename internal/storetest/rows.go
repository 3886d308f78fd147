package storetest

import (
	"fmt"
	"strings"
	"testing"

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
