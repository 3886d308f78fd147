package cli

import (
	"fmt"
	"time"

	"kvdeck/internal/usertext"
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
		c.Requests, plural, usertext.BytesText(c.BytesSent), usertext.BytesText(c.BytesReceived), c.RowsRead, c.RowsWritten, took.Round(time.Millisecond))
}
