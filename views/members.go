package views

import (
	"context"

	"kvdeck/codec"
	"kvdeck/store"
)

// Members are the saved stores the coordination tabs read at once in
// their fleet mode: the listing, and the opener the Fleet view uses
// (read-only, unchecked, each store with its own token, kept open from
// one read to the next). A zero Members has no fleet: the tabs say so.
type Members struct {
	// List lists the saved stores (config.toml, read again each time a
	// tab turns its fleet mode on); nil: no saved stores here.
	List func() ([]Member, error)
	// Open opens the saved store name read-only and unchecked, with its
	// own token; Done gives it back after the read (err: the read's),
	// nil: the reader closes it.
	Open func(ctx context.Context, name string) (*store.Store, error)
	Done func(name string, err error)
	// Group is the group the fleet mode shows: --fleet's, else the saved
	// store's the tabs show; "" is every saved store.
	Group string
	// Start: the tabs start in the fleet mode (--fleet).
	Start bool
}

// Member is one saved store of a fleet.
type Member struct{ Name, Group string }

// OpenInStoreMsg asks the root to show Store (a saved store's name) in
// the tab that sent it, with the row at Key selected: enter on a fleet
// row.
type OpenInStoreMsg struct {
	Store string
	Key   codec.Key // nil: no row
}
