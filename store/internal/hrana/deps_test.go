package hrana_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the wire client knows nothing of the engine: it
// returns rows of Hrana values, and the store builds its entries.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/store/internal/hrana", "kvdeck/store", "kvdeck/codec", "database/sql")
}
