package cli

import (
	"fmt"
	"time"

	"kvdeck/store"
)

// costText is --stats' line: what the command's stores cost (requests,
// bytes each way, the rows the server reports it read and wrote) and how
// long the command took.
func costText(c store.Cost, took time.Duration) string {
	plural := "s"
	if c.Requests == 1 {
		plural = ""
	}
	return fmt.Sprintf("%d request%s, %s sent, %s received, server rows read %d, written %d, %s",
		c.Requests, plural, byteText(c.BytesSent), byteText(c.BytesReceived), c.RowsRead, c.RowsWritten, took.Round(time.Millisecond))
}

// byteText is n bytes in B, kB or MB (powers of 1000).
func byteText(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1000)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
}
