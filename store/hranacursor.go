package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"kvdeck/store/internal/hrana"
)

// A streamed read over HTTP (a row too large for any page, scanremote.go)
// is one cursor request (hrana.Client.Cursor). The request has no fixed
// deadline, since a streamed read takes as long as it takes: it fails
// when the server sends nothing for the request timeout while kvdeck
// waits for it (idleReader); the time the caller spends on the rows does
// not count (a `list | less` left alone for a minute: sqld 0.24.32 kept
// a cursor paused for 70 s and then sent the rest). The cursor's stream
// is closed afterwards in the background (hrana.Client.CloseStream).

// cursorRead is one streamed read: statements the server runs one after
// the other in one cursor request, and which of them reads the NULL keys
// (keyless, -1 for none): its rows carry a rowid, and on a kv without
// rowid it fails, which means there are none.
type cursorRead struct {
	steps   []stmt
	keyless int
}

// readCursor streams the rows of rd's statements to fn from one cursor
// request; hrana.ErrNoCursor when the server has none (nothing was
// read). fn may stop it by returning an error: the answer's body is
// closed (the connection with it) and the error returned.
func (s *Store) readCursor(ctx context.Context, rd cursorRead, fn func(Entry) error) (err error) {
	c := s.server.reads
	if c.NoCursor() {
		return hrana.ErrNoCursor
	}
	if err := s.ready(ctx); err != nil {
		return err
	}
	steps := make([]hrana.Step, len(rd.steps))
	for i, st := range rd.steps {
		if steps[i].Stmt, err = hranaStatement(st); err != nil {
			return err
		}
	}
	s.statements.Add(int64(len(rd.steps)))
	s.roundTrips.Add(1)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(s.reqTimeout, func() { cancel(errRequestTimeout) })
	defer idle.Stop()
	body, err := c.Cursor(ctx, steps)
	idle.Stop()
	if err != nil {
		return s.classify(s.cursorErr(ctx, err))
	}
	defer body.Close()
	d := hrana.NewDecoder(&idleReader{r: body, t: idle, d: s.reqTimeout}, len(rd.steps), rd.keyless)
	defer func() {
		s.server.meter.AddRead(d.ServerRows())
		if d.Baton() != "" {
			c.CloseStream(d.Baton(), min(s.reqTimeout, 5*time.Second))
		}
	}()
	for {
		row, step, err := d.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return s.streamErr(ctx, d, err)
		}
		var rowid int64
		var extra []any
		if step == rd.keyless {
			extra = append(extra, &rowid)
		}
		e, err := scanEntry(&batchRows{rows: [][]hrana.Value{row}, at: 0}, extra...)
		if err != nil {
			return s.streamErr(ctx, d, err)
		}
		s.rowsRead.Add(1)
		if err := fn(e); err != nil {
			return err
		}
	}
}

// idleReader reads an answer under the request timeout: t, which ends
// the request, runs only while a read waits for the server, not while
// the caller handles what was read.
type idleReader struct {
	r io.Reader
	t *time.Timer
	d time.Duration
}

func (r *idleReader) Read(p []byte) (int, error) {
	r.t.Reset(r.d)
	n, err := r.r.Read(p)
	r.t.Stop()
	return n, err
}

// streamErr is the error of a cursor's answer that did not end well: the
// server's own (a statement's), the request timeout, the caller's end
// (ctx), or an answer that broke off.
func (s *Store) streamErr(ctx context.Context, d *hrana.Decoder, err error) error {
	switch {
	case hrana.Answered(err), errors.Is(context.Cause(ctx), errRequestTimeout):
		return s.classify(s.cursorErr(ctx, err))
	case context.Cause(ctx) != nil:
		return context.Cause(ctx)
	case d.BrokenOff(err):
		return s.classify(fmt.Errorf("%w: %s broke off its answer after %d rows (the connection dropped, or the server stopped or could not send a row): %s",
			ErrUnreachable, s.display, d.Rows(), redact(err.Error())))
	}
	return s.classify(err)
}

// cursorErr names a cursor that ended because the server went quiet.
func (s *Store) cursorErr(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), errRequestTimeout) {
		return fmt.Errorf("%w: %s sent nothing for %s (is the server overloaded or the link down?): %s", ErrUnreachable, s.display, s.reqTimeout, redact(err.Error()))
	}
	return err
}
