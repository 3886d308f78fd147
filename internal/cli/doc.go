// Package cli is kvdeck's scriptable command line: the kong command tree,
// connection resolution, output formatting and exit codes. main.go calls
// Main with the process's streams and environment; tests call it in-process
// with their own.
//
// # Adding a command
//
// A command is a struct with kong tags and a Run method that takes *App:
//
//	type LeaseCmd struct {
//		List LeaseListCmd `cmd:"" help:"List leases."`
//	}
//
//	func (c *LeaseListCmd) Run(app *cli.App) error {
//		s, err := app.Open(app.Context(), Opening{}) // --db/--auth-token/env; a write: Opening{Write: true, ...}
//		if err != nil {
//			return err                // exit 2, "kvdeck: <message>" on stderr
//		}
//		key, err := ParseKey("KEY", c.Key) // user key text or tagged JSON, errors name the column
//		...
//		app.Out.Result(v, text)       // one JSON object per line with -o json, text otherwise
//		return NotDone("")            // exit 1: the operation did not happen
//	}
//
// and one line in Root (root.go):
//
//	Lease LeaseCmd `cmd:"" help:"Acquire, release and list leases."`
//
// Put the command in its own file, cmd_<command>.go (cmd_lease.go holds
// every lease subcommand), and its tests in cmd_<command>_test.go; a test
// across commands is named after what it checks (terminal_test.go).
//
// # Helpers
//
//   - App: Open, the one opener (an Opening says which store, its token,
//     a write: refused under --read-only, journaled, MayCreate or
//     MustExist; the store is closed when the command returns), Context,
//     Now (the virtual clock), Pinned (run with the clock frozen), Warnf,
//     RunTUI.
//   - A command that writes declares it: a Writes method naming the write
//     ("lease acquire"), which Main refuses under --read-only before Run
//     reads any input (writer, in app.go).
//   - Printer (App.Out): Result, Object, Textf, Entry, Absent: every output
//     goes through it, so text and JSON stay consistent, and every byte it
//     writes passes the terminal-safety rule of internal/usertext (text:
//     SanitizeLines; JSON: EscapeJSON); stderr passes it too. Stored
//     strings placed in a text line go through usertext.Sanitize first,
//     so a line feed in a name cannot forge another line.
//   - ParseKey, ParseTime (epoch ms | RFC 3339 | +DURATION | now),
//     ParseValue (JSON as the reference stores it), ParseExpireIn, OpenInput.
//   - NotDone (exit 1) and ExitCode (error to exit code).
//
// # Exit codes
//
// 0 success; 1 the operation did not happen (absent key for get, failed
// check, contended lease); 2 bad input, connection or database error; 130
// interrupted. Errors go to stderr prefixed "kvdeck: "; the auth token never
// appears in any output.
//
// The package must not import kvdeck/tui (only main does): the TUI is
// handed in as a TUIRunner through WithTUI.
package cli
