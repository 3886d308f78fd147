package history

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"kvdeck/internal/platform"
	"kvdeck/internal/usertext"
)

// SqldFork gives a store in an sqld namespace as it is now: a fork of
// its namespace made when asked (the admin API's POST
// /v1/namespaces/NS/fork/TO), read like the store, read-only, and
// deleted when the command ends. sqld 0.24 forks the present only (a
// fork from a past instant needs bottomless replication), so it is no
// history: it freezes a moving store, to read it at leisure while its
// services go on (kvdeck --at now), and gives no earlier time.
type SqldFork struct {
	// Admin is the server's admin API.
	Admin platform.Sqld
	// Namespace is the store's namespace.
	Namespace string
	// URL is the store's server (Hrana over HTTP or WebSocket), without
	// its namespace; Token the store's token there.
	URL, Token string
	// Now names the fork and tells the present (nil: time.Now).
	Now func() time.Time
}

// ForkSlack is how far before the present an --at time may be and still
// be served by a fork of the present: the time it takes to type and
// parse "now".
const ForkSlack = 5 * time.Second

// Kind is KindSqld.
func (f *SqldFork) Kind() string { return KindSqld }

// Describe names the namespace.
func (f *SqldFork) Describe() string {
	return "a fork of sqld namespace " + f.Namespace + " made now"
}

// Limits says what a fork cannot give.
func (f *SqldFork) Limits() string {
	return "an sqld fork holds the namespace as it is when made (sqld forks the present, not the past): --at now freezes the store; an earlier time needs a Litestream replica or kvdeck record"
}

// Points is nil: a fork is made at the instant asked, which must be now.
func (f *SqldFork) Points(context.Context) ([]Point, error) { return nil, nil }

func (f *SqldFork) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// forkName is the fork's namespace: the store's (cut so the whole fits
// 128 characters), "-at-", the epoch seconds and a part of the
// nanoseconds, so two kvdecks forking at once do not collide.
func (f *SqldFork) forkName(at time.Time) string {
	suffix := "-at-" + strconv.FormatInt(at.Unix(), 10) + "-" + strconv.FormatInt(int64(at.Nanosecond())%1e6, 36)
	base := f.Namespace
	if len(base)+len(suffix) > 128 {
		base = base[:128-len(suffix)]
	}
	return base + suffix
}

// Open forks the namespace now, when p is the present (within
// ForkSlack); Close deletes the fork.
func (f *SqldFork) Open(ctx context.Context, p Point, _ Dir) (Opened, error) {
	now := f.now()
	if p.At < now.Add(-ForkSlack).UnixMilli() {
		return Opened{}, fmt.Errorf("%w at %s: %s", ErrNoPoint, usertext.FormatTimeFixed(p.At), f.Limits())
	}
	name := f.forkName(now)
	if err := f.Admin.Fork(ctx, f.Namespace, name); err != nil {
		return Opened{}, fmt.Errorf("forking namespace %s: %w", f.Namespace, err)
	}
	drop := func(ctx context.Context) error {
		if err := f.Admin.DeleteNamespace(ctx, name); err != nil {
			return fmt.Errorf("deleting the fork %s (DELETE %s/v1/namespaces/%s deletes it): %w", name, strings.TrimRight(f.Admin.Admin, "/"), name, err)
		}
		return nil
	}
	base, _, _ := strings.Cut(f.URL, "?")
	return Opened{URL: base + "?namespace=" + name, Token: f.Token, Close: drop}, nil
}
