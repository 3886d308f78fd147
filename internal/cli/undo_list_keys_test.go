package cli

import (
	"testing"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/codec"
)

// TestUndoListKeysCut: undo --list's KEYS cuts a key from its least
// telling part: later parts first, the last keeping its end, and a part
// of 8 characters or fewer never; the queue's name stays. It cut the
// key's middle, dropping the queue name.
func TestUndoListKeysCut(t *testing.T) {
	enc := func(text string) []byte {
		t.Helper()
		k, err := codec.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		b, err := codec.Encode(k)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, c := range []struct {
		key   string
		n     int
		width int
		want  string
	}{
		{`["dwk_queue_due", "emails", 1767312000000, "01JX8ZQ4M2N7V3K9T5R6W8Y0AB"]`, 1, 50, `["dwk_queue_due", "emails", 17673…000000, "…Y0AB"]`},
		{`["dwk_queue_due", "emails", 1767312000000, "01JX8ZQ4M2N7V3K9T5R6W8Y0AB"]`, 1, 60, `["dwk_queue_due", "emails", 1767312000000, "…3K9T5R6W8Y0AB"]`},
		{`["dwk_queue_due", "emails", 1767312000000, "01JX8ZQ4M2N7V3K9T5R6W8Y0AB"]`, 3, 52, `["dwk_queue_due", "emails", 17…000, "…Y0AB"] +2 more`},
		{`["dwk_lease", "Pod", "a-very-long-holder-name-of-a-pod"]`, 1, 30, `["dwk_lease", "Pod", "…a-pod"]`},
		{`["users", "bob"]`, 1, 12, `["users", "…`},
		{`["users", "bob"]`, 1, 50, `["users", "bob"]`},
	} {
		got := keysText([][]byte{enc(c.key)}, c.n, c.width)
		if got != c.want {
			t.Errorf("%s in %d: %s, want %s", c.key, c.width, got, c.want)
		}
		if w := ansi.StringWidth(got); w > c.width {
			t.Errorf("%s: %d cells, more than %d", got, w, c.width)
		}
	}
}
