package coord

import (
	"context"
	"encoding/json"
	"fmt"

	"kvdeck/codec"
	"kvdeck/store"
)

// ModeCentral is the mode marker services expect.
const ModeCentral = "central"

// Mode reads the mode marker ["dwk_meta", "mode"]. raw is the stored JSON
// text; mode is its string value, with an error wrapping ErrMalformed when
// the value is not a JSON string.
func Mode(ctx context.Context, s *store.Store) (mode string, raw []byte, found bool, err error) {
	e, found, err := s.Get(ctx, ModeKey())
	if err != nil || !found {
		return "", nil, false, err
	}
	if err := json.Unmarshal(e.Value, &mode); err != nil {
		return "", e.Value, true, fmt.Errorf("%w: the mode marker is %s, not a JSON string", ErrMalformed, truncate(string(e.Value), 60))
	}
	return mode, e.Value, true, nil
}

// SetMode writes the mode marker as a JSON string.
func SetMode(ctx context.Context, s *store.Store, mode string) error {
	v, _ := json.Marshal(mode) // a string always marshals
	if _, err := s.Set(ctx, ModeKey(), v, nil); err != nil {
		return fmt.Errorf("set mode marker: %w", err)
	}
	return nil
}

// Probe does what a service does at startup to prove the store takes
// writes: set ["dwk_meta", "probe", uuid] = true, then delete it. A crash
// between the two leaves the row behind, which inspection reports.
func Probe(ctx context.Context, s *store.Store) error {
	key := ProbeKey(NewUUID())
	if _, err := s.Set(ctx, key, []byte("true"), nil); err != nil {
		return fmt.Errorf("probe write: %w", err)
	}
	if err := s.Delete(ctx, key); err != nil {
		return fmt.Errorf("probe delete (the row %s is left behind): %w", key, err)
	}
	return nil
}

// ProbeRows lists the probe rows present: every one is a leftover of a
// probe that crashed between its write and its delete.
func ProbeRows(ctx context.Context, s *store.Store) ([]store.Entry, error) {
	var out []store.Entry
	err := s.Scan(ctx, store.ListOptions{Prefix: codec.Key{codec.String(PrefixMeta), codec.String("probe")}, IncludeExpired: true}, func(e store.Entry) error {
		out = append(out, e)
		return nil
	})
	return out, err
}
