package store

import (
	"fmt"
	"sync"

	"kvdeck/store/internal/hrana"
)

// A server is reached through kvdeck's own Hrana client
// (store/internal/hrana) only, the schema check included: no
// database/sql pool. serverConn and the files named hrana*.go are the
// only ones of store/ that speak to it (TestWireOnlyInServerConn).

// serverConn is the connection of a server, through kvdeck's own Hrana
// client.
type serverConn struct {
	s *Store
	// primary is the client of the server writes go to; reads the one
	// reads go to: the replica (Options.Replica), or the primary.
	primary, reads *hrana.Client
	// meter counts the requests and what they cost (Cost).
	meter hrana.Meter
	// deferred holds the options of a OneShot open whose schema check is
	// still to come (hranaoneshot.go); nil once done.
	deferred   *Options
	deferredMu sync.Mutex
	token      string // the auth token sent, to scrub it from errors
}

// hranaClients makes kvdeck's own Hrana clients of a server: the
// primary's, and the replica's where opts names one, each with its route
// (hrana.Route).
func (s *Store) hranaClients(opts Options) error {
	target := s.target
	ns := target.Namespace
	if opts.Namespace != "" {
		if err := CheckNamespace(opts.Namespace); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrBadURL, s.display, err)
		}
		if ns != "" && ns != opts.Namespace {
			return fmt.Errorf("%w: %s names namespace %s, and the store's options %s", ErrBadURL, s.display, ns, opts.Namespace)
		}
		if ns == "" {
			ns = opts.Namespace
			s.display += "?namespace=" + ns
		}
	}
	s.target.Namespace = ns
	c := s.server
	c.token = opts.AuthToken // only for scrub: never printed
	primary, replica := hrana.NewRoutes(ns, opts.Replica != "")
	var err error
	if c.primary, err = newClient(target, opts.AuthToken, &c.meter, primary); err != nil {
		return err
	}
	c.reads = c.primary
	if opts.Replica == "" {
		return nil
	}
	rt, err := ParseTarget(opts.Replica)
	switch {
	case err != nil:
		return fmt.Errorf("the replica: %w", err)
	case !rt.Transport.Remote():
		return fmt.Errorf("%w: the replica %s is not a server's URL", ErrBadURL, rt.Display)
	case rt.Namespace != "" && rt.Namespace != ns:
		return fmt.Errorf("%w: the replica %s names another namespace than the store", ErrBadURL, rt.Display)
	}
	if c.reads, err = newClient(rt, opts.AuthToken, &c.meter, replica); err != nil {
		return err
	}
	s.display += " (reads: " + rt.Display + ")"
	return nil
}

// newClient makes kvdeck's Hrana client of the server target names.
func newClient(target Target, token string, m *hrana.Meter, route *hrana.Route) (*hrana.Client, error) {
	c, err := hrana.NewClient(target.URL, target.Transport == TransportWS, token, m, route)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadURL, target.Display, err)
	}
	return c, nil
}

// tooLarge reports whether err is the server's refusal of an answer
// over its size limit (sqld: RESPONSE_TOO_LARGE).
func tooLarge(err error) bool {
	return hrana.HasCode(err, "RESPONSE_TOO_LARGE")
}
