// Package tui is the root bubbletea model of kvdeck: tabs, focus, layout,
// global keys, help, status bar, flash messages and refresh ticks.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"kvdeck/internal/editsession"
	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
	"kvdeck/themes"
)

// Config is what main hands the TUI; its one definition lives in
// internal/tuiconfig, which the command line imports too.
type Config = tuiconfig.Config

// Run shows the TUI on s until the user quits. Stores opened with :open
// are closed on the way out; s stays the caller's.
func Run(ctx context.Context, s *store.Store, cfg Config) error {
	noColor := termenv.EnvNoColor()
	theme, err := themes.ByName(cfg.Theme, noColor)
	if err != nil {
		return err
	}
	r := lipgloss.DefaultRenderer()
	if noColor {
		// NO_COLOR asks for no colour, not for no bold or reverse video:
		// keep the terminal's attributes and draw with the mono theme.
		r.SetColorProfile(termenv.NewOutput(os.Stdout).ColorProfile())
	}
	// Ask the terminal for its background now, before bubbletea reads the
	// input: "auto" picks the light or dark palette from it.
	r.HasDarkBackground()

	// Browse's E keeps the values it hands to $EDITOR in a directory of
	// this session's own; it goes, and a running editor is stopped, when
	// the session ends or main's context is cancelled by a signal.
	edits, err := editsession.Open(editsession.Base())
	if err != nil {
		return fmt.Errorf("making the edit directory: %w", err)
	}
	defer edits.Close()
	defer edits.CloseOn(ctx)()
	cfg.Edits = edits

	m := newModel(s, cfg, themes.NewStyles(theme.ForProfile(lipgloss.ColorProfile())), osc52(os.Stdout))
	// ctx is the one way a signal stops the TUI (main cancels it on
	// SIGINT, SIGTERM and SIGHUP; ctrl+c is a key in raw mode). bubbletea's
	// own handler took SIGTERM too and then waited, without end, to hand
	// its quit to an event loop that had already ended on ctx: the TUI
	// hung on about one SIGTERM in four.
	return runProgram(ctx, m, os.Stderr, os.Getenv, tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithFPS(30), tea.WithoutSignalHandler())
}

// runProgram shows m until the user quits or ctx ends (main cancels it on
// SIGTERM and SIGHUP), then prints to stderr what the session gave up
// and how to get each back (exit.go): the last lines printed. Stores
// opened with :open are closed on the way out.
func runProgram(ctx context.Context, m model, stderr io.Writer, getenv func(string) string, opts ...tea.ProgramOption) error {
	p := tea.NewProgram(m, append([]tea.ProgramOption{tea.WithContext(ctx)}, opts...)...)
	final, err := p.Run()
	if fm, ok := final.(model); ok {
		for _, line := range fm.exitReport(getenv, os.Getpid()) {
			fmt.Fprintln(stderr, line)
		}
		if fm.owned {
			fm.store.Close()
		}
		if fm.tm.past != nil { // :at's point, and the live store if the root opened it
			_ = fm.tm.past.Close(context.WithoutCancel(ctx))
			if fm.tm.liveOwned {
				fm.tm.live.Close()
			}
		}
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // the caller cancelled: a normal way out
	}
	return err
}

// osc52 copies text to the terminal's clipboard with an OSC 52 escape (it
// works over SSH too; no clipboard library or X server needed).
func osc52(w io.Writer) func(string) error {
	out := termenv.NewOutput(w)
	return func(text string) error {
		out.Copy(text)
		return nil
	}
}
