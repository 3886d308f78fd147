//go:build largedata

package store_test

import (
	"fmt"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestLargeCensusOfManyPrefixesOverServer: a store of 100,000 top-level keys
// (a flat key space) over sqld: every prefix is a row of figures in the
// census's answer, and one statement of a window holding them all
// answered about 15 MB (146 bytes a prefix), which sqld refuses (10 MB); the statements stop
// at censusMaxRanges prefixes each, and count every row.
func TestLargeCensusOfManyPrefixesOverServer(t *testing.T) {
	const n = 100_000
	storetest.Each(t, []storetest.Backend{storetest.SQLD().Named("http")}, func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{Create: true})
		storetest.Exec(t, url, fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %d) `+
			`INSERT INTO kv SELECT CAST(x'02' || CAST(printf('user-%%06d', i) AS BLOB) || x'00' AS BLOB), '{}', 1, NULL FROM c`, n))
		st, err := s.Stats(storetest.Ctx(t), storetest.T0)
		if err != nil || st.Rows != n || len(st.ByPrefix) != n {
			t.Fatalf("stats: %d rows in %d prefixes, %v; want %d in %d", st.Rows, len(st.ByPrefix), err, n, n)
		}
	})
}
