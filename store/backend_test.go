package store_test

import (
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// The suite runs against storetest.FileHTTPWS: the embedded file and a
// real sqld over HTTP and over WebSocket, a fresh database per subtest.

func mustSet(t *testing.T, s *store.Store, k string, v string, expireIn *time.Duration) string {
	t.Helper()
	stamp, err := s.Set(storetest.Ctx(t), storetest.Key(t, k), []byte(v), expireIn)
	if err != nil {
		t.Fatalf("set %s: %v", k, err)
	}
	return stamp
}

func dur(d time.Duration) *time.Duration { return &d }

func keysOf(entries []store.Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = codec.Format(e.Key)
	}
	return out
}
