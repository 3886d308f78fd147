package storetest_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

func TestClock(t *testing.T) {
	c := storetest.NewClock(storetest.T0)
	if got := c.Now(); got != 1767312000000 {
		t.Fatalf("NewClock(T0).Now() = %d", got)
	}
	c.Add(1500 * time.Millisecond)
	if got := c.Now(); got != storetest.T0+1500 {
		t.Fatalf("after Add(1.5s): %d", got)
	}
	c.Set(5)
	if got := c.Now(); got != 5 {
		t.Fatalf("after Set(5): %d", got)
	}
}

func TestKeyAndCtx(t *testing.T) {
	if k := storetest.Key(t, `["a", 1]`); !k.Equal(codec.Key{codec.String("a"), codec.Number(1)}) {
		t.Fatalf("Key = %v", k)
	}
	ctx := storetest.Ctx(t)
	if d, ok := ctx.Deadline(); !ok || time.Until(d) > time.Minute {
		t.Fatalf("Ctx deadline %v %v", d, ok)
	}
}

// TestEachOpen: every backend runs under its name on a fresh database,
// and Open gives a store that works on the given clock.
func TestEachOpen(t *testing.T) {
	var names []string
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		names = append(names, b.Name)
		c := storetest.NewClock(storetest.T0)
		s := storetest.Open(t, b.URL(t), store.Options{Clock: c.Now})
		ctx := storetest.Ctx(t)
		if st, err := s.Stats(ctx, c.Now()); err != nil || st.Rows != 0 {
			t.Fatalf("a fresh database has rows: %+v %v", st, err)
		}
		ttl := time.Second
		if _, err := s.Set(ctx, storetest.Key(t, `["k"]`), []byte(`1`), &ttl); err != nil {
			t.Fatal(err)
		}
		c.Add(time.Second)
		if _, found, err := s.Get(ctx, storetest.Key(t, `["k"]`)); err != nil || found {
			t.Fatalf("the row outlived the clock: found=%v err=%v", found, err)
		}
	})
	if want := []string{"file", "http", "ws"}; !slices.Equal(names, want) {
		t.Errorf("subtests %v, want %v", names, want)
	}
	if got := storetest.SQLDWS().Named("sqld-ws").Name; got != "sqld-ws" {
		t.Errorf("Named: %s", got)
	}
}

// TestEachStore: the store fn gets runs on the clock it gets, at T0.
func TestEachStore(t *testing.T) {
	storetest.EachStore(t, []storetest.Backend{storetest.File()}, func(t *testing.T, s *store.Store, c *storetest.Clock) {
		if s.Now() != storetest.T0 {
			t.Fatalf("store clock %d, want T0", s.Now())
		}
		c.Add(time.Minute)
		if s.Now() != storetest.T0+60000 {
			t.Fatalf("the store does not follow the clock: %d", s.Now())
		}
	})
}

// TestCopyReference: the copy has the reference's bytes, outside the
// vectors folder.
func TestCopyReference(t *testing.T) {
	dir := storetest.VectorsDir(t)
	src, err := os.ReadFile(filepath.Join(dir, "public-reference.db"))
	if err != nil {
		t.Fatal(err)
	}
	cp := storetest.CopyReference(t)
	got, err := os.ReadFile(cp)
	if err != nil || !bytes.Equal(got, src) || filepath.Dir(cp) == dir {
		t.Fatalf("CopyReference = %s (%d bytes, %v), want a copy of %d bytes outside %s", cp, len(got), err, len(src), dir)
	}
}

// TestFindVectors: KVDECK_VECTORS wins when it names a folder and is an
// error of its own when it does not; outside any repository the vectors
// are simply absent (ErrNoVectors, which VectorsDir turns into a skip).
func TestFindVectors(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(storetest.EnvVectors, dir)
	if d, err := storetest.FindVectors(); err != nil || d != dir {
		t.Errorf("with %s set: %s, %v", storetest.EnvVectors, d, err)
	}
	t.Setenv(storetest.EnvVectors, filepath.Join(dir, "missing"))
	if _, err := storetest.FindVectors(); err == nil || errors.Is(err, storetest.ErrNoVectors) {
		t.Errorf("a %s naming no folder must be an error of its own: %v", storetest.EnvVectors, err)
	}
	t.Setenv(storetest.EnvVectors, "")
	t.Chdir(dir)
	if _, err := storetest.FindVectors(); !errors.Is(err, storetest.ErrNoVectors) {
		t.Errorf("outside the repository: %v, want ErrNoVectors", err)
	}
}

// TestDirNames: the names in a folder, sorted, folders among them; an
// empty folder has none.
func TestDirNames(t *testing.T) {
	dir := t.TempDir()
	if got := storetest.DirNames(t, dir); len(got) != 0 {
		t.Fatalf("an empty folder: %v", got)
	}
	for _, name := range []string{"kv.db-wal", "kv.db", "a.db-shm"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got, want := storetest.DirNames(t, dir), []string{"a.db-shm", "kv.db", "kv.db-wal", "sub"}; !slices.Equal(got, want) {
		t.Fatalf("DirNames = %v, want %v", got, want)
	}
}
