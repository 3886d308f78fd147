package alarms

import (
	"context"

	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views/coordkit"
	"kvdeck/views/widgets"
)

// fleetDef is the Alarms tab's fleet mode: every alarm of every store of
// the group, in the order one class lists them (time order, the most
// overdue first; rows whose time cannot be read last), each read with
// the tab's own inspection.
func fleetDef(st themes.Styles) coordkit.FleetDef {
	cols := append([]widgets.Column{{Title: "", Width: 1}, {Title: "CLASS", Width: 8, Grow: true, Max: 16}}, alarmColumns[1:]...)
	cells := Model{Base: coordkit.Base{Styles: st}}
	return coordkit.FleetDef{
		Tab: "alarms", Order: "most overdue first", None: "alarm", Columns: cols,
		Read: func(ctx context.Context, s *store.Store, now int64) ([]coordkit.FleetRow, error) {
			classes, _, err := inspectAlarms(ctx, s, now)
			var rows []coordkit.FleetRow
			for _, c := range classes {
				for _, it := range classItems(c) {
					cs := cells.alarmCells(it, now, false)
					cs[0] = cs[0][len(cs[0])-1:] // the glyph, without the cursor's and the marks' gutter
					rank := 0
					if it.Problem != "" {
						rank = 1
					}
					rows = append(rows, coordkit.FleetRow{Key: it.Key, Rank: rank, At: it.EpochMs,
						Cells: append([]widgets.Line{cs[0], {{Text: widgets.Sanitize(c.Class), Style: st.Text}}}, cs[1:]...)})
				}
			}
			return rows, err
		},
	}
}
