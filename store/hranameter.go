package store

import "kvdeck/store/internal/hrana"

// Cost is what a store's requests cost since Open, as counted on the way
// (Store.Cost): the requests and their bytes each way, and the rows the
// server says it read and wrote (Hrana's rows_read and rows_written,
// which Turso bills by; for a streamed read, whose answer on sqld 0.24.32
// does not say, the rows it returned).
type Cost = hrana.Cost

// Cost returns what the store's requests cost so far: everything kvdeck's
// own Hrana clients send (HTTP pipelines and cursors, the WebSocket reads
// and write batches), to the primary and to a replica, which is all a
// store sends a server. Not counted: the stream closes sent in the
// background after a streamed read. A file store costs no requests.
func (s *Store) Cost() Cost { return s.conn.cost() }

func (c *serverConn) cost() Cost { return c.meter.Cost() }

// cost: a file sends no requests.
func (f *fileConn) cost() Cost { return Cost{} }
