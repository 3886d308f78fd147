package storetest

import (
	"bytes"
	"sync"
)

// LockedBuffer is a bytes.Buffer safe for a writer and a reader at once:
// the output of a child process or a goroutine, read while it runs.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
