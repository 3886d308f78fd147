package queues

import (
	"context"
	"fmt"

	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/coordkit"
	"kvdeck/views/widgets"
)

// fleetColumns are the fleet mode's columns after STORE: queueColumns'
// queue, ready and delayed, the oldest ready message's age (wider: a
// fleet holds older queues than a look at one store shows) and the
// messages on their final attempt.
var fleetColumns = []widgets.Column{queueColumns[1], queueColumns[2], queueColumns[3],
	{Title: "OLDEST", Width: 8}, {Title: "FINAL", Width: 5, Right: true}}

// fleetDef is the Queues tab's fleet mode: one row per queue of every
// store of the group, the queues with messages ready first, the oldest
// ready message first; enter selects that message in its store. Each
// store is read by the tab's own inspection, one read.
func fleetDef(st themes.Styles) coordkit.FleetDef {
	return coordkit.FleetDef{
		Tab: "queues", Order: "oldest ready message first", None: "queue", Columns: fleetColumns,
		Read: func(ctx context.Context, s *store.Store, now int64) ([]coordkit.FleetRow, error) {
			qs, _, err := inspectQueues(ctx, s, now)
			at := Model{Base: coordkit.Base{Styles: st, Deps: views.Deps{Now: func() int64 { return now }}}, loadedAt: now}
			out := make([]coordkit.FleetRow, 0, len(qs))
			for _, q := range qs {
				d := at.depthAt(q, now)
				row := coordkit.FleetRow{Rank: 1, Cells: append(at.queueCells(q, false)[1:], widgets.Line{{Text: fmt.Sprint(q.Final), Style: st.Text}})}
				if d.ready > 0 {
					row.Rank, row.At = 0, -d.oldestMs
				}
				if len(q.Messages) > 0 {
					row.Key = q.Messages[0].Key
				}
				out = append(out, row)
			}
			return out, err
		},
	}
}
