package history

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"kvdeck/internal/journal"
	"kvdeck/store"
)

// Putting keys back is one checked write of the live store
// (store.Restore: one commit, one journal entry, undone whole): each key
// gets the row it had then (its value and expiry, under a new stamp), or
// is deleted where it had none, and is checked against the stamp it has
// now, so that a change another writer made since it was read is
// refused, not overwritten. A key that is now as it was then is left
// alone: a put-back that changes nothing is not made.

// PutBackKey is one key of a put-back: its row then and now (nil: none).
type PutBackKey struct {
	Raw       []byte
	Then, Now *store.RawRow
	// Same: the key is now as it was then (the same version, or the same
	// value and expiry): it is left alone.
	Same bool
}

// PutBackPlan is what a put-back writes, shown before it is made.
type PutBackPlan struct {
	Keys []PutBackKey
	Ops  []store.RestoreOp
}

// Same counts the keys left alone.
func (p PutBackPlan) Same() int { return len(p.Keys) - len(p.Ops) }

// PlanPutBack reads each key now in live and plans putting back thens[i]
// (nil: no row then) at raws[i]: a restore checked against the stamp
// read now, for each key not as it was.
func PlanPutBack(ctx context.Context, live *store.Store, raws [][]byte, thens []*store.RawRow) (PutBackPlan, error) {
	var plan PutBackPlan
	for i, raw := range raws {
		now, err := Physical(ctx, live, raw)
		if err != nil {
			return PutBackPlan{}, err
		}
		k := PutBackKey{Raw: raw, Then: thens[i], Now: now, Same: sameState(thens[i], now)}
		plan.Keys = append(plan.Keys, k)
		if k.Same {
			continue
		}
		op := store.RestoreOp{Key: raw, Put: thens[i]}
		if now != nil {
			op.ExpectVer = now.Ver
		}
		plan.Ops = append(plan.Ops, op)
	}
	return plan, nil
}

// sameState reports whether a key's row then and now are one state: the
// same version, or the same value and expiry.
func sameState(then, now *store.RawRow) bool {
	if SameVersion(then, now) {
		return true
	}
	if then == nil || now == nil || !bytes.Equal(then.Value, now.Value) {
		return false
	}
	if (then.ExpiresAt == nil) != (now.ExpiresAt == nil) {
		return false
	}
	return then.ExpiresAt == nil || *then.ExpiresAt == *now.ExpiresAt
}

// ErrPutBackRefused: a key changed since it was read; nothing was
// written.
var ErrPutBackRefused = fmt.Errorf("put-back refused, nothing was written")

// PutBack writes plan's restores to live in one commit and returns the
// new versionstamp ("" when only deletes were made). A refusal names
// each key changed since it was read (ErrPutBackRefused).
func PutBack(ctx context.Context, live *store.Store, plan PutBackPlan) (string, error) {
	res, err := live.Restore(ctx, plan.Ops)
	if err != nil {
		return "", err
	}
	if !res.OK {
		msgs := make([]string, len(res.Conflicts))
		for i, cf := range res.Conflicts {
			msgs[i] = journal.ConflictText(cf)
		}
		n := "1 key"
		if len(msgs) != 1 {
			n = fmt.Sprintf("%d keys", len(msgs))
		}
		return "", fmt.Errorf("%w: %s changed since it was read: %s", ErrPutBackRefused, n, strings.Join(msgs, "; "))
	}
	return res.Versionstamp, nil
}
