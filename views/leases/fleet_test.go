package leases

import (
	"testing"

	"kvdeck/views/viewtest"
)

// TestFleetGolden: the fleet mode (A) over a fleet of the anomalies, the
// reference, a dead server and a name that tries an escape, on the wide
// and the small screens.
func TestFleetGolden(t *testing.T) { viewtest.FleetGoldens[Model](t, New) }

// TestFleetOfFileSqldAndDead: the fleet mode over a file, a sqld and a
// dead URL (viewtest.FleetOfFileSqldAndDead).
func TestFleetOfFileSqldAndDead(t *testing.T) {
	viewtest.FleetOfFileSqldAndDead[Model](t, New, "Cart", "B")
}

// TestFleetBudget: one read per store per refresh (viewtest.FleetBudget).
func TestFleetBudget(t *testing.T) { viewtest.FleetBudget[Model](t, New, Model.FleetTick) }
