package editsession

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
)

// EditorCommand runs the editor named by value ($VISUAL or $EDITOR) on
// path as git runs its editor: the value is shell text, so "code --wait" and "'/opt/My Editor/bin/ed' -n" work through
// sh -c 'VALUE "$@"'; a value with nothing the shell would read runs
// directly. One case git lacks: a value that is as a whole the path of an
// executable file ("/opt/My Editor/bin/ed", unquoted) runs as that file,
// since the shell would split it at the space.
func EditorCommand(value, path string) *exec.Cmd {
	if !strings.ContainsAny(value, shellSpecial) || isExecutableFile(value) {
		return exec.Command(value, path)
	}
	return exec.Command("sh", "-c", Script(value+` "$@"`), value, path)
}

// Script is shell text to run with sh -c (an editor, a pager): text
// itself, after "exec " when it is one simple command (no ; & | ( ) or
// newline, and no leading VAR=), so that the process a Session tracks
// and stops is the command, not a shell waiting on it (dash does not
// exec by itself).
func Script(text string) string {
	if strings.ContainsAny(text, ";&|()\n") || assignment.MatchString(text) {
		return text
	}
	return "exec " + text
}

// shellSpecial are the characters that make git hand its editor to the
// shell (run-command.c, prepare_shell_cmd).
const shellSpecial = "|&;<>()$`\\\"' \t\n*?[#~=%"

// assignment matches text that starts with a variable assignment (a
// name, as POSIX spells one, and =), which exec would take for a
// command name. A-B=x is no assignment: sh runs it as a command.
var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// Assignment reports whether word starts with a variable assignment
// (NAME=), which the shell reads as one, not as a command's name.
func Assignment(word string) bool { return assignment.MatchString(word) }

// isExecutableFile reports whether value, a path with a slash, names an
// executable regular file.
func isExecutableFile(value string) bool {
	if !strings.Contains(value, "/") {
		return false
	}
	st, err := os.Stat(value)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}
