package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ProbeRow runs one read-only statement of the caller's (a SELECT or a
// WITH) that returns at most one row, as one request, and scans it into
// dest; found is false when it returned none. It serves reads that must
// fit one request, e.g. a fleet's health read (coord.Pulse), and only on a
// store opened read-only. A statement that reads kv or kv_meta where the
// table is missing fails with ErrNotStore: with Options.Unchecked it is
// the schema check.
func (s *Store) ProbeRow(ctx context.Context, q string, args []any, dest ...any) (found bool, err error) {
	if !s.readOnly {
		return false, fmt.Errorf("%w: ProbeRow needs a store opened read-only", ErrInvalidArgument)
	}
	head := strings.ToUpper(strings.TrimSpace(q))
	if !strings.HasPrefix(head, "SELECT") && !strings.HasPrefix(head, "WITH") {
		return false, fmt.Errorf("%w: ProbeRow runs a SELECT or a WITH only", ErrInvalidArgument)
	}
	found, err = s.queryRow(ctx, q, args, dest...)
	if err != nil && !errors.Is(err, ErrNotStore) && strings.Contains(err.Error(), "no such table") {
		return false, fmt.Errorf("%w: %s has no kv and kv_meta tables: %w", ErrNotStore, s.display, err)
	}
	return found, err
}
