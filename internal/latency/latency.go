// Package latency is a reverse proxy in front of a libSQL server that adds
// a fixed delay to every request and counts requests: HTTP requests (Hrana
// pipeline calls) and WebSocket messages sent by the client. Tests use it to
// assert request budgets; `kvdeck bench --remote` uses it to count what
// each operation sends and to simulate a link of a given latency.
package latency

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"kvdeck/internal/retry"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy forwards to one server. It is safe for concurrent use.
type Proxy struct {
	// URL reaches the server through the proxy over HTTP (http://127.0.0.1:port).
	URL string
	// WSURL is the same address for WebSocket clients (ws://127.0.0.1:port).
	WSURL string

	target   *url.URL
	delay    atomic.Int64
	slowFrom atomic.Int64 // SlowFrom's request number (0: off)
	slow     atomic.Int64 // ... and its delay
	swap     atomic.Bool
	swapped  atomic.Int64
	requests atomic.Int64
	bytesIn  atomic.Int64
	ln       net.Listener
	srv      *http.Server
	rp       *httputil.ReverseProxy
	wg       sync.WaitGroup
	mu       sync.Mutex
	hijacked map[net.Conn]struct{}
	closed   bool
}

// Target turns a database URL (http, https, ws, wss, libsql) into the
// server address the proxy forwards to; libsql:// is served over TLS.
func Target(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "ws":
		u.Scheme = "http"
	case "https", "wss", "libsql":
		u.Scheme = "https"
	default:
		return nil, fmt.Errorf("latency: %q is not a server URL (http, https, ws, wss or libsql)", raw)
	}
	u.Path, u.RawQuery = "", ""
	return u, nil
}

// New starts a proxy on 127.0.0.1 in front of the server at target (any URL
// form Target accepts) that waits delay before forwarding each request.
func New(target string, delay time.Duration) (*Proxy, error) {
	u, err := Target(target)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{target: u, ln: ln, hijacked: map[net.Conn]struct{}{}}
	p.delay.Store(int64(delay))
	p.URL = "http://" + ln.Addr().String()
	p.WSURL = "ws://" + ln.Addr().String()
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			r.Out.Host = u.Host
		},
	}
	p.srv = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: 10 * time.Second}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		_ = p.srv.Serve(ln)
	}()
	return p, nil
}

// SetDelay changes the delay added to each request from now on.
func (p *Proxy) SetDelay(d time.Duration) { p.delay.Store(int64(d)) }

// SwapBatchAnswers makes the proxy deliver a WebSocket answer to a Hrana
// batch after the server's next message (when one follows within
// swapWait), as the server itself may: Hrana answers requests as they
// complete, in any order. A client that expects the answers in the order
// of its requests is caught so.
func (p *Proxy) SwapBatchAnswers(on bool) { p.swap.Store(on) }

// Swapped counts the batch answers delivered after the message that
// followed them.
func (p *Proxy) Swapped() int64 { return p.swapped.Load() }

// swapWait is how long a held batch answer waits for the next message.
const swapWait = 200 * time.Millisecond

// SlowFrom makes the HTTP requests counted from the n-th on (Requests
// after it is called, plus n) wait d instead of Delay: a link that turns
// slow in the middle of an operation, at a request a test names rather
// than at a moment it guesses. n <= 0 turns it off.
func (p *Proxy) SlowFrom(n int64, d time.Duration) {
	p.slow.Store(int64(d))
	if n <= 0 {
		p.slowFrom.Store(0)
		return
	}
	p.slowFrom.Store(p.requests.Load() + n)
}

// Delay is the delay added to each request.
func (p *Proxy) Delay() time.Duration { return time.Duration(p.delay.Load()) }

// Requests counts the requests forwarded so far: HTTP requests and
// WebSocket data messages from the client. An HTTP request that only closes
// a Hrana stream is not counted (the driver sends it in the background when
// it drops a connection, not as part of an operation).
func (p *Proxy) Requests() int64 { return p.requests.Load() }

// BytesIn counts the bytes of HTTP response bodies forwarded to clients.
func (p *Proxy) BytesIn() int64 { return p.bytesIn.Load() }

// Count runs fn and returns how many requests it sent.
func (p *Proxy) Count(fn func()) int64 {
	before := p.Requests()
	fn()
	return p.Requests() - before
}

// Close stops the proxy and drops its connections.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	for c := range p.hijacked {
		c.Close()
	}
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := p.srv.Shutdown(ctx)
	if err != nil {
		err = p.srv.Close()
	}
	p.wg.Wait()
	return err
}

func (p *Proxy) wait(ctx context.Context, d time.Duration) error {
	return retry.Wait(ctx, d)
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		p.serveWS(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	d := p.Delay()
	if !isCloseOnly(body) {
		if n, from := p.requests.Add(1), p.slowFrom.Load(); from > 0 && n >= from {
			d = time.Duration(p.slow.Load())
		}
	}
	if err := p.wait(r.Context(), d); err != nil {
		return
	}
	p.rp.ServeHTTP(&countingWriter{ResponseWriter: w, n: &p.bytesIn}, r)
}

// isCloseOnly reports whether a Hrana pipeline body only closes its stream.
func isCloseOnly(body []byte) bool {
	return bytes.Contains(body, []byte(`"type":"close"`)) && bytes.Count(body, []byte(`"type":`)) == 1
}

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (w *countingWriter) Write(b []byte) (int, error) {
	w.n.Add(int64(len(b)))
	return w.ResponseWriter.Write(b)
}

func (w *countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// serveWS tunnels a WebSocket connection: the handshake and the server's
// frames pass through untouched; the client's frames are parsed, counted
// (one per data message) and each forwarded Delay after it arrived.
func (p *Proxy) serveWS(w http.ResponseWriter, r *http.Request) {
	var backend net.Conn
	var err error
	d := net.Dialer{Timeout: 10 * time.Second}
	if p.target.Scheme == "https" {
		backend, err = tls.DialWithDialer(&d, "tcp", hostPort(p.target), &tls.Config{ServerName: p.target.Hostname()})
	} else {
		backend, err = d.Dial("tcp", hostPort(p.target))
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		backend.Close()
		http.Error(w, "cannot hijack", http.StatusInternalServerError)
		return
	}
	out := r.Clone(context.Background())
	out.URL.Scheme, out.URL.Host, out.Host, out.RequestURI = "", "", p.target.Host, ""
	if err := out.Write(backend); err != nil {
		backend.Close()
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		backend.Close()
		return
	}
	if !p.track(client, backend) {
		return
	}
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		p.pumpAnswers(bufio.NewReader(backend), client)
		client.Close()
	}()
	go func() {
		defer p.wg.Done()
		p.pumpFrames(buf.Reader, backend)
		backend.Close()
		p.untrack(client, backend)
	}()
}

func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.hijacked[c] = struct{}{}
	}
	return true
}

func (p *Proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.hijacked, c)
		c.Close()
	}
}

type frame struct {
	data []byte
	at   time.Time
}

// pumpFrames reads client frames and forwards each one Delay after its
// arrival, keeping their order (pipelined messages overlap their delays,
// as on a real link).
func (p *Proxy) pumpFrames(in *bufio.Reader, out net.Conn) {
	queue := make(chan frame, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for f := range queue {
			if wait := time.Until(f.at.Add(p.Delay())); wait > 0 {
				time.Sleep(wait)
			}
			if _, err := out.Write(f.data); err != nil {
				out.Close()
				for range queue {
				}
				return
			}
		}
	}()
	defer func() { close(queue); <-done }()
	for {
		data, opcode, err := readFrame(in)
		if err != nil {
			return
		}
		// A data message is counted once, on its first frame; control
		// frames (close, ping, pong) and continuations are not.
		if opcode == 1 || opcode == 2 {
			p.requests.Add(1)
		}
		queue <- frame{data: data, at: time.Now()}
	}
}

// pumpAnswers forwards the server's frames to the client unchanged and in
// order, except that while SwapBatchAnswers is on, a batch answer is held
// until the next frame has gone out (or swapWait has passed).
func (p *Proxy) pumpAnswers(in *bufio.Reader, out net.Conn) {
	if !copyHandshake(in, out) {
		return
	}
	frames := make(chan []byte)
	go func() {
		defer close(frames)
		for {
			data, _, err := readFrame(in)
			if err != nil {
				return
			}
			frames <- data
		}
	}()
	defer func() {
		for range frames { // let the reader end
		}
	}()
	p.forwardAnswers(frames, func(b []byte) bool {
		_, err := out.Write(b)
		if err != nil {
			out.Close()
		}
		return err == nil
	})
}

// copyHandshake copies the server's handshake answer (HTTP headers up to
// an empty line) as it is; false when the connection ended.
func copyHandshake(in *bufio.Reader, out net.Conn) bool {
	for {
		line, err := in.ReadSlice('\n')
		if err != nil {
			return false
		}
		if _, err := out.Write(line); err != nil {
			return false
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			return true
		}
	}
}

// forwardAnswers writes the server's frames to the client; with swapping
// on, a batch's answer is held until the next frame (or swapWait) and
// written after it, as a server answering out of order would.
func (p *Proxy) forwardAnswers(frames <-chan []byte, write func([]byte) bool) {
	var held []byte
	for {
		var wait <-chan time.Time
		if held != nil {
			wait = time.After(swapWait)
		}
		select {
		case data, ok := <-frames:
			if !ok {
				if held != nil {
					write(held)
				}
				return
			}
			if held != nil {
				if !write(data) || !write(held) {
					return
				}
				p.swapped.Add(1)
				held = nil
				continue
			}
			if p.swap.Load() && bytes.Contains(data, []byte(`"type":"batch"`)) {
				held = data
				continue
			}
			if !write(data) {
				return
			}
		case <-wait:
			if !write(held) {
				return
			}
			held = nil
		}
	}
}

// readFrame reads one whole WebSocket frame (RFC 6455 section 5.2) and
// returns its bytes unchanged.
func readFrame(in *bufio.Reader) (data []byte, opcode byte, err error) {
	var head [14]byte
	if _, err = io.ReadFull(in, head[:2]); err != nil {
		return nil, 0, err
	}
	n := 2
	length := uint64(head[1] & 0x7f)
	switch length {
	case 126:
		if _, err = io.ReadFull(in, head[2:4]); err != nil {
			return nil, 0, err
		}
		length, n = uint64(binary.BigEndian.Uint16(head[2:4])), 4
	case 127:
		if _, err = io.ReadFull(in, head[2:10]); err != nil {
			return nil, 0, err
		}
		length, n = binary.BigEndian.Uint64(head[2:10]), 10
	}
	if head[1]&0x80 != 0 {
		if _, err = io.ReadFull(in, head[n:n+4]); err != nil {
			return nil, 0, err
		}
		n += 4
	}
	if length > 1<<30 {
		return nil, 0, errors.New("latency: websocket frame too large")
	}
	data = make([]byte, n+int(length))
	copy(data, head[:n])
	if _, err = io.ReadFull(in, data[n:]); err != nil {
		return nil, 0, err
	}
	return data, head[0] & 0x0f, nil
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}
