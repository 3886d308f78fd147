package activity

import (
	"os"
	"testing"
	"time"
)

// TestMain runs the tests with a short pace for the reads that follow a
// refresh (a paced walk, the recheck of the rows kept beyond one batch),
// which the harness waits for; the large-data tests set the real one.
func TestMain(m *testing.M) {
	walkPace = 10 * time.Millisecond
	os.Exit(m.Run())
}
