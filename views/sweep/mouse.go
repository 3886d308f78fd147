package sweep

import (
	"kvdeck/views/widgets"
)

// onClick selects the prefix a left click on the census table picked.
func (m Model) onClick(x, y int) Model {
	lw := m.width * 2 / 3
	if m.census == nil || m.filter.Typing() || x >= lw {
		return m
	}
	// The frame, the title, the census time, any census error, the
	// filter line and the table header.
	top := 5
	if m.scanErr != nil {
		top += len(widgets.ProseLines("✗ the last census failed: "+m.scanErr.Error(), m.styles.Error, lw-m.styles.Pane.GetHorizontalFrameSize()))
	}
	shown := m.shown()
	from, to := m.rowWindow(top-1, shown)
	if y >= top && y-top < to-from {
		m.selectIndex(shown[from+y-top])
	}
	return m
}
