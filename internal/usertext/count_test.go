package usertext

import "testing"

// TestSizesAndCounts: sizes in binary units, counts exact with
// separators or short, as kvdeck writes them everywhere.
func TestSizesAndCounts(t *testing.T) {
	for _, tc := range []struct {
		n                   int64
		bytes, count, short string
	}{
		{0, "0 B", "0", "0"},
		{812, "812 B", "812", "812"},
		{1023, "1023 B", "1,023", "1.0k"},
		{1024, "1.0 KiB", "1,024", "1.0k"},
		{3412, "3.3 KiB", "3,412", "3.4k"},
		{1 << 20, "1.0 MiB", "1,048,576", "1.0M"},
		{1_200_000, "1.1 MiB", "1,200,000", "1.2M"},
		{3 << 30, "3.0 GiB", "3,221,225,472", "3221.2M"},
		{-1234, "-1234 B", "-1,234", "-1234"},
	} {
		if got := BytesText(tc.n); got != tc.bytes {
			t.Errorf("BytesText(%d) = %q, want %q", tc.n, got, tc.bytes)
		}
		if got := Count(tc.n); got != tc.count {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.count)
		}
		if got := CountShort(tc.n); got != tc.short {
			t.Errorf("CountShort(%d) = %q, want %q", tc.n, got, tc.short)
		}
	}
}
