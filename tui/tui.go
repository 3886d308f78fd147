// Package tui is the root bubbletea model of kvdeck: tabs, focus, layout,
// global keys, help, status bar, flash messages and refresh ticks.
package tui

import (
	"context"
	"errors"
	"time"

	"kvdeck/store"
)

// Config is what main hands the TUI.
type Config struct {
	// Clock is the virtual clock the store was opened with (:clock changes it).
	Clock *store.VirtualClock
	// Open opens another database for :open URL with the same options.
	Open func(ctx context.Context, url string) (*store.Store, error)
	// Theme is "auto", "dark", "light" or "high-contrast".
	Theme string
	// Refresh is the live refresh interval (default 1s).
	Refresh time.Duration
}

// Run shows the TUI on s until the user quits.
func Run(ctx context.Context, s *store.Store, cfg Config) error {
	return errors.New("the TUI is not built yet")
}
