package store_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestNamespacesKeepTheirOwnRows: two namespaces of one sqld, reached by
// its IP address (which would name namespace "127"), each over HTTP and
// WebSocket, by the URL's ?namespace= or by Options.Namespace: each
// store sees only its own rows, in a get, a listing (a streamed cursor
// over HTTP) and a one-shot open, and the plain URL reaches neither.
func TestNamespacesKeepTheirOwnRows(t *testing.T) {
	srv := sqldtest.Start(t, sqldtest.WithNamespaces())
	srv.CreateNamespace(t, "alpha")
	srv.CreateNamespace(t, "beta")
	ctx := storetest.Ctx(t)
	for _, base := range []string{srv.URL, srv.WSURL} {
		t.Run(strings.SplitN(base, ":", 2)[0], func(t *testing.T) {
			alpha := storetest.Open(t, base+"?namespace=alpha", store.Options{})
			beta := storetest.Open(t, base, store.Options{Namespace: "beta"})
			if !strings.Contains(alpha.Info().Display, "?namespace=alpha") || !strings.Contains(beta.Info().Display, "?namespace=beta") {
				t.Errorf("displays %q and %q do not name their namespaces", alpha.Info().Display, beta.Info().Display)
			}
			for i, s := range []*store.Store{alpha, beta} {
				name := []string{"alpha", "beta"}[i]
				for j := range 3 {
					if _, err := s.Set(ctx, storetest.Key(t, fmt.Sprintf(`["%s", %d]`, name, j)), []byte(`1`), nil); err != nil {
						t.Fatalf("%s: set: %v", name, err)
					}
				}
			}
			for i, s := range []*store.Store{alpha, beta} {
				name, other := []string{"alpha", "beta"}[i], []string{"beta", "alpha"}[i]
				var keys []string
				if err := s.Scan(ctx, store.ListOptions{}, func(e store.Entry) error {
					keys = append(keys, e.Key.String())
					return nil
				}); err != nil {
					t.Fatalf("%s: scan: %v", name, err)
				}
				if len(keys) != 3 || strings.Contains(strings.Join(keys, " "), other) {
					t.Errorf("%s lists %v, want its own 3 keys", name, keys)
				}
				if _, found, err := s.Get(ctx, storetest.Key(t, fmt.Sprintf(`["%s", 0]`, other))); err != nil || found {
					t.Errorf("%s gets %s's key: found %v, %v", name, other, found, err)
				}
			}
			one, err := store.Open(ctx, base+"?namespace=beta", store.Options{OneShot: true, ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer one.Close()
			if _, found, err := one.Get(ctx, storetest.Key(t, `["beta", 2]`)); err != nil || !found {
				t.Errorf("a one-shot get in beta: found %v, %v", found, err)
			}
			if _, err := store.Open(ctx, base, store.Options{ReadOnly: true}); err == nil {
				t.Error("the URL without a namespace opened on a server with namespaces on (it names namespace 127)")
			}
		})
	}
}

// TestNamespaceOptionsAgree: the URL's namespace and Options.Namespace
// must agree, a file takes none, and a bad name is refused without being
// repeated.
func TestNamespaceOptionsAgree(t *testing.T) {
	ctx := storetest.Ctx(t)
	if _, err := store.Open(ctx, "http://127.0.0.1:1?namespace=a", store.Options{Namespace: "b", OneShot: true}); !errors.Is(err, store.ErrBadURL) {
		t.Errorf("two namespaces: %v, want ErrBadURL", err)
	}
	if _, err := store.Open(ctx, "file:"+t.TempDir()+"/x.db", store.Options{Namespace: "a", Create: true}); !errors.Is(err, store.ErrBadURL) {
		t.Errorf("a file with a namespace: %v, want ErrBadURL", err)
	}
	for _, u := range []string{"http://h:1?namespace=a/b", "http://h:1?namespace=", "http://h:1?namespace=..", "http://h:1?namespace=a&namespace=b", "http://h:1?namespace=secret.tok%41"} {
		_, err := store.ParseTarget(u)
		if !errors.Is(err, store.ErrBadURL) {
			t.Errorf("%s: %v, want ErrBadURL", u, err)
		}
		if err != nil && strings.Contains(err.Error(), "tok") {
			t.Errorf("%s: the error repeats the name: %v", u, err)
		}
	}
	if _, err := store.ParseTarget("http://h:1?namespace=a&authToken=x"); !errors.Is(err, store.ErrTokenInURL) {
		t.Errorf("a token beside the namespace: %v, want ErrTokenInURL", err)
	}
	tg, err := store.ParseTarget("http://h:1/?namespace=a.b-c_9")
	if err != nil || tg.Namespace != "a.b-c_9" || strings.Contains(tg.URL, "namespace") {
		t.Errorf("ParseTarget: %+v, %v", tg, err)
	}
}

// TestReplicaReadsAfterOwnWrite: a store whose reads go to a replica of
// the pinned sqld reads its own write at once, 200 times in a row, over
// HTTP and over WebSocket; the replica lag reads as a count of frames.
// (Without the replication index on the reads, about half of such reads
// were stale.)
func TestReplicaReadsAfterOwnWrite(t *testing.T) {
	primary := sqldtest.Start(t, sqldtest.WithGRPC())
	replica := sqldtest.StartReplica(t, primary)
	ctx := storetest.Ctx(t)
	for _, c := range []struct{ name, url string }{{"http", replica.URL}, {"ws", replica.WSURL}} {
		t.Run(c.name, func(t *testing.T) {
			s := storetest.Open(t, primary.URL, store.Options{Replica: c.url})
			k := storetest.Key(t, `["replica", "`+c.name+`"]`)
			stale := 0
			for i := range 200 {
				want := fmt.Sprint(i)
				if _, err := s.Set(ctx, k, []byte(want), nil); err != nil {
					t.Fatalf("set %d: %v", i, err)
				}
				e, found, err := s.Get(ctx, k)
				if err != nil {
					t.Fatalf("get %d: %v", i, err)
				}
				if !found || string(e.Value) != want {
					stale++
				}
			}
			if stale > 0 {
				t.Errorf("%d of 200 reads right after the store's own write were stale", stale)
			}
			r, err := s.Replication(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if r.Primary == 0 || r.Replica == 0 || r.Lag < 0 || r.Replica > r.Primary {
				t.Errorf("replication %+v", r)
			}
		})
	}
	plain := storetest.Open(t, primary.URL, store.Options{})
	if _, err := plain.Replication(ctx); !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("Replication without a replica: %v", err)
	}
}
