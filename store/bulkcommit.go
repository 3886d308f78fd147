package store

import (
	"context"
	"fmt"

	"kvdeck/codec"
)

// Bulk actions (the TUI's marked rows): many rows acted
// on in a few checked atomic commits. Each row is a BulkUnit, its checks
// (the stamps seen when it was marked) and its mutations applied together
// or not at all; PlanBulk splits the units into commits within the bulk
// limits, and CommitBulk runs one of them, skipping the units whose row
// changed since it was marked (a failed check) instead of overwriting it.

// BulkLimits bound one bulk commit. The engine itself takes a commit of
// any size (its statements are chunked under SQLite's limits, write.go),
// but a commit holds the database's write lock while it runs and is one
// request over a server: a bulk action is cut into commits of at most Rows
// mutations and Bytes of keys and values, so that each stays short, its
// journal entry (the before-images) stays small, and stopping between
// commits (esc) loses little.
type BulkLimits struct {
	Rows, Bytes int
}

// The default limits (a zero BulkLimits field): 500 writes (insertChunk's
// row count) and 1 MiB of keys and values a commit.
const (
	BulkCommitRows  = 500
	BulkCommitBytes = 1 << 20
)

// BulkUnit is one row's share of a bulk action.
type BulkUnit struct {
	// Key names the unit in reports (the row marked).
	Key codec.Key
	// Checks hold the row as it was marked; when one fails, the unit is
	// skipped, never applied.
	Checks []Check
	// Muts are its writes (a message's retry is a delete and a set).
	Muts []Mutation
}

// size is the unit's weight against BulkLimits.Bytes: its keys and values.
func (u BulkUnit) size() int {
	n := 0
	for _, m := range u.Muts {
		n += len(codec.Format(m.Key)) + len(m.Value)
	}
	for _, c := range u.Checks {
		n += len(codec.Format(c.Key))
	}
	return n
}

// BulkPlan is a bulk action cut into commits.
type BulkPlan struct {
	Commits [][]BulkUnit
	// Why says why there is more than one commit ("" when one).
	Why string
}

// PlanBulk cuts units into commits of at most lim.Rows mutations and
// lim.Bytes, in order; a unit is never split. A zero limit is the
// default's.
func PlanBulk(units []BulkUnit, lim BulkLimits) BulkPlan {
	if lim.Rows <= 0 {
		lim.Rows = BulkCommitRows
	}
	if lim.Bytes <= 0 {
		lim.Bytes = BulkCommitBytes
	}
	var p BulkPlan
	var cur []BulkUnit
	rows, bytes, byRows, byBytes := 0, 0, false, false
	for _, u := range units {
		n, b := len(u.Muts), u.size()
		if len(cur) > 0 && (rows+n > lim.Rows || bytes+b > lim.Bytes) {
			byRows = byRows || rows+n > lim.Rows
			byBytes = byBytes || rows+n <= lim.Rows
			p.Commits = append(p.Commits, cur)
			cur, rows, bytes = nil, 0, 0
		}
		cur = append(cur, u)
		rows, bytes = rows+n, bytes+b
	}
	if len(cur) > 0 {
		p.Commits = append(p.Commits, cur)
	}
	switch {
	case len(p.Commits) <= 1:
	case byBytes:
		p.Why = fmt.Sprintf("at most %d writes and %d KiB of keys and values per commit", lim.Rows, lim.Bytes>>10)
	default:
		p.Why = fmt.Sprintf("at most %d writes per commit", lim.Rows)
	}
	return p
}

// BulkOutcome is what one bulk commit did.
type BulkOutcome struct {
	// Applied counts the units written.
	Applied int
	// Skipped are the units whose row changed since it was marked (a
	// check failed): nothing of them was written.
	Skipped []codec.Key
	// Versionstamp is the commit's stamp ("" without a set or when nothing
	// was applied).
	Versionstamp string
}

// CommitBulk writes units as one checked atomic commit. When checks fail,
// the units holding them are dropped and the rest committed again: the
// rows changed since they were marked are reported, never overwritten. A
// commit with a failed check costs two more requests over a server (the
// explanation and the retry); one without, one.
func (s *Store) CommitBulk(ctx context.Context, units []BulkUnit) (BulkOutcome, error) {
	var out BulkOutcome
	for len(units) > 0 {
		var checks []Check
		var muts []Mutation
		for _, u := range units {
			checks = append(checks, u.Checks...)
			muts = append(muts, u.Muts...)
		}
		res, err := s.Commit(ctx, checks, muts)
		if err != nil {
			return out, err
		}
		if res.OK {
			out.Applied, out.Versionstamp = len(units), res.Versionstamp
			return out, nil
		}
		keep, skipped := dropFailed(units, res.Failed)
		if len(skipped) == 0 {
			// The explanation found every check holding again (another
			// writer put a row back between): nothing to drop, so give up
			// rather than loop; the caller reports the units as skipped.
			skipped, keep = units, nil
		}
		for _, u := range skipped {
			out.Skipped = append(out.Skipped, u.Key)
		}
		units = keep
	}
	return out, nil
}

// dropFailed splits units into those without a failed check and those with.
func dropFailed(units []BulkUnit, failed []CheckFailure) (keep, drop []BulkUnit) {
	bad := map[string]bool{}
	for _, f := range failed {
		bad[codec.Format(f.Key)] = true
	}
	for _, u := range units {
		hit := false
		for _, c := range u.Checks {
			hit = hit || bad[codec.Format(c.Key)]
		}
		if hit {
			drop = append(drop, u)
		} else {
			keep = append(keep, u)
		}
	}
	return keep, drop
}

// DeleteUnit is the bulk unit that deletes key when it still has stamp
// (the versionstamp seen when it was marked).
func DeleteUnit(key codec.Key, stamp string) BulkUnit {
	return BulkUnit{Key: key, Checks: []Check{{Key: key, Versionstamp: stamp}}, Muts: []Mutation{{Type: MutationDelete, Key: key}}}
}
