package widgets

import (
	"testing"

	"kvdeck/themes"
)

func TestShareBar(t *testing.T) {
	st := themes.NewStyles(themes.Dark())
	for _, c := range []struct {
		part, whole int64
		want        string
	}{
		{0, 10, "░░░░"}, {-5, 10, "░░░░"}, {10, 10, "████"}, {20, 10, "████"}, {5, 10, "██░░"},
		{1, 1000, "▏░░░"}, // something left shows
		{3, 0, "████"},    // an unknown whole fills
	} {
		if got := ShareBar(c.part, c.whole, 4, st.OK, st.Muted).Render(true); got != c.want {
			t.Errorf("shareBar(%d, %d) = %q, want %q", c.part, c.whole, got, c.want)
		}
	}
}
