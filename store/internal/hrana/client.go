package hrana

import (
	"context"
	"io"
	"time"
)

// Client is kvdeck's Hrana client of one server: over HTTP or over
// WebSocket (the other nil), with its route.
type Client struct {
	http  *HTTP
	ws    *WS
	route *Route
}

// NewClient makes the client of the server at url (http(s)://,
// libsql:// or, with ws, ws(s)://), sending token, counted in m.
func NewClient(url string, ws bool, token string, m *Meter, route *Route) (*Client, error) {
	c := &Client{route: route}
	if ws {
		c.ws = &WS{url: url, token: token, meter: m, route: route}
		return c, nil
	}
	var err error
	c.http, err = NewHTTP(url, token, m, route)
	return c, err
}

// Route is what the client's requests carry beside their statements.
func (c *Client) Route() *Route { return c.route }

// OverWebSocket reports whether the client speaks over WebSocket.
func (c *Client) OverWebSocket() bool { return c.ws != nil }

// Send sends reqs to the server in one request, with the stream's close,
// and returns their answers: over HTTP one pipeline, over WebSocket one
// burst of messages on a stream of their own. An error wrapping
// ErrNotSent means nothing reached the server; a *ServerError that it
// answered with an error; any other leaves the outcome unknown.
func (c *Client) Send(ctx context.Context, reqs []Req) ([]Result, error) {
	if c.ws != nil {
		return c.ws.Stream(ctx, reqs)
	}
	res, err := c.http.pipeline(ctx, append(reqs, CloseReq))
	if err != nil {
		return nil, err
	}
	return res[:len(reqs)], nil
}

// Read sends one read request and returns its answer: stamped by the
// route (on a replica, the highest replication index seen); over HTTP a
// pipeline with the stream's close, marked replayable (a read may be sent
// again on another connection when a kept-alive one turns out closed);
// over WebSocket on a reading connection's long-lived stream.
func (c *Client) Read(ctx context.Context, req Req) (Result, error) {
	req, back := c.route.stamp(req)
	res, err := c.read(ctx, req)
	if err != nil {
		return Result{}, err
	}
	return back(res), nil
}

// read is Read without the route's stamp.
func (c *Client) read(ctx context.Context, req Req) (Result, error) {
	if c.ws != nil {
		return c.ws.query(ctx, req)
	}
	res, err := c.http.send(ctx, nil, []Req{req, CloseReq}, c.http.meter, true)
	if err != nil {
		return Result{}, err
	}
	return res[0], nil
}

// ReplicationIndex is the replication index the server answers a
// statement that reads nothing with (one request, without an index to
// wait for).
func (c *Client) ReplicationIndex(ctx context.Context) (uint64, error) {
	res, err := c.read(ctx, ExecuteReq(Stmt{SQL: "SELECT 1", WantRows: true}))
	if err == nil && res.Error != nil {
		err = StmtError(res.Error)
	}
	if err == nil && res.Stmt == nil {
		err = ErrNoAnswer
	}
	if err != nil {
		return 0, err
	}
	return uint64(res.Stmt.ReplicationIndex), nil
}

// LockWrite waits for this process's turn to write to the server (over
// WebSocket: WS.LockWrite; over HTTP there is no turn to wait for); the
// returned func ends the turn. It fails only when ctx ends first.
func (c *Client) LockWrite(ctx context.Context) (func(), error) {
	if c.ws != nil {
		return c.ws.LockWrite(ctx)
	}
	return func() {}, nil
}

// NoCursor reports whether the server is known to offer no cursor: over
// WebSocket, or an HTTP server that answered that it has none.
func (c *Client) NoCursor() bool { return c.http == nil || c.http.noCursor.Load() }

// Cursor opens a cursor over steps (HTTP.Cursor); ErrNoCursor where
// NoCursor.
func (c *Client) Cursor(ctx context.Context, steps []Step) (io.ReadCloser, error) {
	if c.NoCursor() {
		return nil, ErrNoCursor
	}
	return c.http.Cursor(ctx, steps)
}

// CloseStream closes a cursor's stream in the background
// (HTTP.closeStream).
func (c *Client) CloseStream(baton string, timeout time.Duration) {
	if c.http != nil {
		c.http.closeStream(baton, timeout)
	}
}

// Close ends the client's connections (WebSocket) and waits for its
// stream closes on their way (HTTP).
func (c *Client) Close() {
	if c.ws != nil {
		c.ws.Close()
	}
	if c.http != nil {
		c.http.waitClosing()
	}
}

// SendReads is Send of read requests, each stamped by the route as Read
// stamps one, and their answers turned back.
func (c *Client) SendReads(ctx context.Context, reqs []Req) ([]Result, error) {
	stamped := make([]Req, len(reqs))
	backs := make([]func(Result) Result, len(reqs))
	for i, r := range reqs {
		stamped[i], backs[i] = c.route.stamp(r)
	}
	res, err := c.Send(ctx, stamped)
	if err != nil {
		return nil, err
	}
	for i := range res {
		res[i] = backs[i](res[i])
	}
	return res, nil
}
