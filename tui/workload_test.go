package tui

import (
	"context"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/themes"
)

// TestRaceWorkersOpenAsAWorkload: the connections the views open for a
// workload (the Race tab's live workers) come from OpenWorkload, which
// does not journal, as `kvdeck race` does not; Open (journaled) is the
// fallback when no workload opener is given.
func TestRaceWorkersOpenAsAWorkload(t *testing.T) {
	url := "file:" + t.TempDir() + "/kv.db"
	s := storetest.Open(t, url, store.Options{Create: true})
	var used []string
	opener := func(name string) func(ctx context.Context, u string) (*store.Store, error) {
		return func(ctx context.Context, u string) (*store.Store, error) {
			used = append(used, name)
			return store.Open(ctx, u, store.Options{})
		}
	}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Open: opener("open"), OpenWorkload: opener("workload")}, "workload"},
		{Config{Open: opener("open")}, "open"},
	} {
		used = nil
		c.cfg.Refresh = time.Hour
		m := newModel(s, c.cfg, themes.NewStyles(themes.Dark()), func(string) error { return nil })
		w, err := m.deps().Open(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		if len(used) != 1 || used[0] != c.want {
			t.Errorf("the views' Open used %v; want %s", used, c.want)
		}
	}
}
