// Package testskip skips a test so that the run can say so at its end:
// besides t.Skip, it appends the reason to the file named by KVDECK_SKIPLOG
// (scripts/test sets it and prints a summary of the file last), so a
// missing sqld or missing reference vectors never pass unnoticed.
package testskip

import (
	"os"
	"strings"
	"testing"
)

// EnvLog names the file that collects skip notes; unset, nothing is noted.
const EnvLog = "KVDECK_SKIPLOG"

// Skip notes why t is skipped, then skips it.
func Skip(t testing.TB, reason string) {
	t.Helper()
	Note(t.Name(), reason)
	t.Skip(reason)
}

// Note appends "reason<TAB>what" to the skip log. One write per note on a
// file opened for appending keeps lines whole when test binaries of
// several packages note at once.
func Note(what, reason string) {
	path := os.Getenv(EnvLog)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	oneLine := strings.NewReplacer("\n", " ", "\t", " ")
	_, _ = f.WriteString(oneLine.Replace(reason) + "\t" + oneLine.Replace(what) + "\n")
}
