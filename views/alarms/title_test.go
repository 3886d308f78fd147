package alarms

import (
	"strings"
	"testing"

	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

// TestClassTitleKeepsItsEscapes: a class name with a zero-width character
// is shown upper-cased with its escape as every other text shows it,
// \u200b, not \U200B (the title upper-cased the
// escape, which then read as another character).
func TestClassTitleKeepsItsEscapes(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	if err := coord.SetAlarm(viewtest.Ctx, s, "cart\u200bx", "abcdefabcdefabcdefabcdefabcdef01", viewtest.T+60000); err != nil {
		t.Fatal(err)
	}
	h := newAlarmsHarness(t, s, clock, 120, 37)
	view := h.M.View()
	if !strings.Contains(view, `CART\u200bX`) || strings.Contains(view, `\U200B`) {
		t.Errorf("the class title is not CART\\u200bX:\n%s", view)
	}
}
