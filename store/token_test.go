package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestOpenRefusesAMalformedToken: a token with a line break, an escape
// or another control byte is refused as malformed before anything is
// sent, without showing it; before, it was sent (or refused by the HTTP
// client) and reported as "database unreachable … is the server
// running?".
func TestOpenRefusesAMalformedToken(t *testing.T) {
	storetest.Each(t, []storetest.Backend{storetest.SQLD().Named("http"), storetest.SQLDWS()}, func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		for _, tok := range []string{"secret-1\nsecret-2", "secret\x1b[31m", "secret\r", "\x00secret"} {
			_, err := store.Open(context.Background(), url, store.Options{AuthToken: tok, ReadOnly: true})
			if !errors.Is(err, store.ErrBadToken) || errors.Is(err, store.ErrUnreachable) {
				t.Errorf("%q: %v; want ErrBadToken", tok, err)
				continue
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("%q: the error shows the token: %v", tok, err)
			}
		}
		// A file takes no token: it is not looked at there.
		if _, err := store.Open(context.Background(), "file:"+t.TempDir()+"/x.db", store.Options{AuthToken: "a\nb", Create: true}); err != nil {
			t.Errorf("a file with a token: %v", err)
		}
	})
}
