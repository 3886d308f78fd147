package views

import (
	"strings"
	"time"
)

// Held is work a tab holds that quitting gives up: text typed and not
// saved, a batch claimed out of a queue and not decided. Before a quit
// that would drop one the root asks (ctrl+c and q alike), and on the way
// out, however the TUI ended, it says where each went: typed text is kept
// in a private file, held writes are named by the journal entries that
// put them back. A tab that holds such work is a Holder.
type Held struct {
	// What names the work in a line of the quit dialog, e.g. `your edit
	// of ["users", "alice"], not saved`.
	What string
	// Keep is text to keep in a file on the way out (nil: none). KeepExt
	// is the file's extension, "json" when empty.
	Keep    []byte
	KeepExt string
	// Use is the kvdeck command that uses the kept file, FILE where its
	// path goes, without the store's flags (the root adds them): `set
	// '["users", "alice"]' - < FILE`. Empty: the file is the recovery.
	Use string
	// Op and Since name held writes: the journal entries this process
	// made under Op (store.WithWriteOp) since Since that only delete (a
	// queue's claims); their undo puts the rows back. Empty Op: none.
	Op    string
	Since time.Time
}

// Holder is a tab that may hold work a quit would give up.
type Holder interface {
	Held() []Held
}

// ShellQuote is s as one word of a POSIX shell, for a command printed to
// be pasted: in single quotes, each quote inside closed, escaped and
// opened again.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
