package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"kvdeck/store"
)

// Exit codes, the same for every command.
const (
	// CodeOK: the command did what it was asked.
	CodeOK = 0
	// CodeNotDone: the operation did not happen (a failed check, an absent
	// key where one is required, a contended lease).
	CodeNotDone = 1
	// CodeError: bad input, or a connection or database error.
	CodeError = 2
	// CodeUnknown: a write was sent but its answer was lost (a timeout, an
	// interrupt, a dropped connection) and re-reading could not tell
	// whether it was applied (store.ErrOutcomeUnknown).
	CodeUnknown = 3
	// CodeInterrupted: the command was cancelled (Ctrl-C, SIGTERM) before
	// anything was written, or while reading.
	CodeInterrupted = 130
)

// ExitError is an error that chooses the exit code. An empty Err message
// means the output already said everything and nothing goes to stderr.
type ExitError struct {
	Code int
	Err  error
}

// Error returns the message of the wrapped error.
func (e *ExitError) Error() string {
	if e.Err == nil {
		return ""
	}
	return e.Err.Error()
}

// Unwrap returns the wrapped error.
func (e *ExitError) Unwrap() error { return e.Err }

// NotDone returns an error that exits with CodeNotDone. With an empty
// format nothing is printed to stderr (the command's output says what did
// not happen); otherwise the formatted message is.
func NotDone(format string, args ...any) error {
	if format == "" {
		return &ExitError{Code: CodeNotDone}
	}
	return &ExitError{Code: CodeNotDone, Err: fmt.Errorf(format, args...)}
}

// ExitCode maps the error a command returned to the process exit code:
// nil is CodeOK, an *ExitError its own code, a write of unknown outcome
// CodeUnknown, a cancelled context CodeInterrupted, anything else
// CodeError.
func ExitCode(err error) int {
	if err == nil {
		return CodeOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	if errors.Is(err, store.ErrOutcomeUnknown) {
		return CodeUnknown
	}
	if errors.Is(err, context.Canceled) {
		return CodeInterrupted
	}
	return CodeError
}

// StopSignals are the signals that cancel the context main hands a
// command (Ctrl-C, SIGTERM, and SIGHUP when the terminal goes away), so
// that the command stops and cleans up: the TUI stops an editor it runs
// and removes the value files it made for it.
func StopSignals() []os.Signal { return []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} }
