package leases

import (
	"context"

	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/coordkit"
	"kvdeck/views/widgets"
)

// fleetColumns are the fleet mode's columns after STORE: leaseColumns'
// kind, name, id, holder (taking the room left), time left and state
// (the bar, the stamp and the age are the store's own view).
var fleetColumns = []widgets.Column{leaseColumns[1], leaseColumns[2], leaseColumns[3],
	{Title: "HOLDER", Width: 0, Min: 9, Middle: true}, {Title: "TIME LEFT", Width: 10, Keep: true}, {Title: "STATE", Width: 15, Drop: 5}}

// fleetCells picks fleetColumns' cells of leaseCells'.
var fleetCells = []int{1, 2, 3, 4, 7, 8}

// fleetDef is the Leases tab's fleet mode: every lease and cron tick row
// of every store of the group in the order S sorts one store's by time
// left (the longest expired first, then the soonest to expire; rows
// without expiry last), each store read by coord.InspectLeases, one read
// (the cron schedules the tab's detail shows are the store's own view).
func fleetDef(st themes.Styles) coordkit.FleetDef {
	return coordkit.FleetDef{
		Tab: "leases", Order: "expired and expiring first", None: "lease or cron row", Columns: fleetColumns,
		Read: func(ctx context.Context, s *store.Store, now int64) ([]coordkit.FleetRow, error) {
			rows, _, err := coord.InspectLeases(ctx, s, now)
			at := Model{Base: coordkit.Base{Styles: st, Deps: views.Deps{Now: func() int64 { return now }}}}
			out := make([]coordkit.FleetRow, 0, len(rows))
			for _, r := range rows {
				cs := at.leaseCells(r, false, 0)
				row := coordkit.FleetRow{Key: r.Key, Rank: 1}
				if r.ExpiresAt != nil {
					row.Rank, row.At = 0, *r.ExpiresAt
				}
				for _, i := range fleetCells {
					row.Cells = append(row.Cells, cs[i])
				}
				out = append(out, row)
			}
			return out, err
		},
	}
}
