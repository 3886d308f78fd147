package hrana

import (
	"context"
	"time"
)

// Reads over WebSocket run on long-lived streams: each pooled reading
// connection opens one stream with its first read and keeps it (the
// server keeps a database connection for it), as libsql-client-go's
// connections did. Reads are not gated (wsWriteGates is for writes) and
// never share a connection with the write batches.

// wsReadIdle is how long an idle reading connection is kept.
const wsReadIdle = time.Minute

// query runs one read request on a reading connection's stream. A
// kept connection that fails (the server or the network dropped it
// meanwhile) is closed and the read sent again once on a new one: a read
// changes nothing.
func (w *WS) query(ctx context.Context, req Req) (Result, error) {
	if c := w.take(&w.readIdle, wsReadIdle); c != nil {
		res, err := w.exec(ctx, c, req)
		if err == nil || ctx.Err() != nil {
			return res, err
		}
	}
	c, err := w.dial(ctx)
	if err != nil {
		return Result{}, err
	}
	return w.exec(ctx, c, req)
}

// exec sends req on c's stream (opening it with the same burst when c
// has none) and returns its answer; c goes back to the reading pool, or
// is closed when anything failed but the statement.
func (w *WS) exec(ctx context.Context, c *wsConn, req Req) (Result, error) {
	var msgs []map[string]any
	var ids []int
	if c.stream == 0 {
		c.nextID++
		c.stream = c.nextID
		msgs = append(msgs, map[string]any{"type": "request", "request_id": c.stream, "request": map[string]any{"type": "open_stream", "stream_id": c.stream}})
		ids = append(ids, c.stream)
	}
	c.nextID++
	req.StreamID = &c.stream
	msgs = append(msgs, map[string]any{"type": "request", "request_id": c.nextID, "request": req})
	ids = append(ids, c.nextID)
	if err := c.write(ctx, w.meter, msgs); err != nil {
		return Result{}, err
	}
	answers, err := c.read(ctx, w.meter, &w.bufs, ids...)
	if err != nil {
		_ = c.conn.CloseNow()
		return Result{}, err
	}
	if len(answers) == 2 && answers[0].typ != "response_ok" {
		// The stream did not open: the connection is of no use.
		_ = c.conn.CloseNow()
		return answers[0].result(), nil
	}
	c.lastUsed = time.Now()
	w.give(&w.readIdle, c)
	res := answers[len(answers)-1].result()
	w.meter.rows(res)
	w.route.note(res)
	return res, nil
}
