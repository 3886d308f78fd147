package store

import (
	"database/sql/driver"
	"fmt"
	"strings"
	"sync"

	"github.com/tursodatabase/libsql-client-go/libsql"
)

// fileConnectors holds the database/sql connector of every embedded
// database this process opened, by its SQLite URI, built once and kept
// for the life of the process: libsql-client-go's connector of a file:
// URL calls sql.Open("sqlite", …) to take modernc's driver and never
// closes that *sql.DB (its connectionOpener goroutine stays). Built per
// Open, that grew without bound (kvdeck fleet -w over 50 file stores:
// thousands of goroutines in two minutes); built once per URI it is one
// handle per database whatever the number of opens. A URI is the path
// with the open's mode (read-only, immutable, busy timeout), so a
// database has at most a few.
var fileConnectors sync.Map // SQLite URI -> func() (driver.Connector, error)

// fileConnector returns the connector of the embedded database at
// connURL, from fileConnectors (a server has none: a remote store speaks
// through kvdeck's own Hrana clients only).
func fileConnector(connURL string) (driver.Connector, error) {
	if !strings.HasPrefix(connURL, "file:") {
		// libsql-client-go would answer a server URL with its own remote
		// client; kvdeck keeps one, store/internal/hrana.
		return nil, fmt.Errorf("store: the file connector takes file: URLs only, not %s", redactURL(connURL))
	}
	build, _ := fileConnectors.LoadOrStore(connURL, sync.OnceValues(func() (driver.Connector, error) {
		return libsql.NewConnector(connURL)
	}))
	return build.(func() (driver.Connector, error))()
}
