package queues

import (
	"testing"

	"kvdeck/views/viewtest"
)

// TestFleetMode: the fleet mode (W): goldens, a fleet of a file, a sqld
// and a dead URL, and one read per store per refresh (viewtest.FleetMode).
func TestFleetMode(t *testing.T) {
	viewtest.FleetMode[Model](t, New, Model.FleetTick, "invoices", "d")
}
