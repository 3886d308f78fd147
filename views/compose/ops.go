package compose

import (
	"fmt"
	"time"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views/widgets"
)

// opKind is what a staged operation of a composition does.
type opKind int

// The kinds of staged operation, in the order a commit applies them
// (checks first, then the mutations in list order).
const (
	opCheck opKind = iota
	opSet
	opDel
)

// String is the kind's name in the list.
func (k opKind) String() string {
	switch k {
	case opCheck:
		return "check"
	case opSet:
		return "set"
	case opDel:
	}
	return "delete"
}

// stagedOp is one operation of a composition, validated when it was
// staged: the key encodes, a set's value is JSON.
type stagedOp struct {
	kind     opKind
	key      codec.Key
	stamp    string         // check: the expected stamp ("" = absent or expired)
	value    []byte         // set: JSON as the reference stores it
	expireIn *time.Duration // set: nil = no expiry
	// refreshed marks a check whose stamp was just re-read from the store
	// (after a failed commit), so the user sees what changed.
	refreshed bool
}

// commitOf turns the list into the commit's checks and mutations, and
// remembers which op each check came from (to refresh stale ones).
func commitOf(ops []stagedOp) (checks []store.Check, muts []store.Mutation, checkOp []int) {
	for i, op := range ops {
		switch op.kind {
		case opCheck:
			checks = append(checks, store.Check{Key: op.key, Versionstamp: op.stamp})
			checkOp = append(checkOp, i)
		case opSet:
			muts = append(muts, store.Mutation{Type: store.MutationSet, Key: op.key, Value: op.value, ExpireIn: op.expireIn})
		default:
			muts = append(muts, store.Mutation{Type: store.MutationDelete, Key: op.key})
		}
	}
	return checks, muts, checkOp
}

// opsOf is commitOf's inverse: a loaded document's checks, then its
// mutations, in order.
func opsOf(checks []store.Check, muts []store.Mutation) []stagedOp {
	ops := make([]stagedOp, 0, len(checks)+len(muts))
	for _, c := range checks {
		ops = append(ops, stagedOp{kind: opCheck, key: c.Key, stamp: c.Versionstamp})
	}
	for _, m := range muts {
		op := stagedOp{kind: opDel, key: m.Key}
		if m.Type == store.MutationSet {
			op = stagedOp{kind: opSet, key: m.Key, value: m.Value, expireIn: m.ExpireIn}
		}
		ops = append(ops, op)
	}
	return ops
}

// Limits a Deno KV style store usually imposes; the budget line shows a
// composition against them as guidance (this store enforces none).
const (
	limitKey       = 2048
	limitValue     = 64 << 10
	limitMutations = 1000
)

// budget is a composition's encoded sizes and counts.
type budget struct {
	checks, mutations int
	keyBytes, maxKey  int // encoded keys: total and largest
	valBytes, maxVal  int // set values: total and largest
}

// measure adds up a composition.
func measure(ops []stagedOp) budget {
	var b budget
	for _, op := range ops {
		n := len(codec.MustEncode(op.key))
		b.keyBytes += n
		b.maxKey = max(b.maxKey, n)
		if op.kind == opCheck {
			b.checks++
			continue
		}
		b.mutations++
		b.valBytes += len(op.value)
		b.maxVal = max(b.maxVal, len(op.value))
	}
	return b
}

// over lists the limits the composition exceeds.
func (b budget) over() []string {
	var out []string
	if b.maxKey > limitKey {
		out = append(out, fmt.Sprintf("a key of %d B is over %d B", b.maxKey, limitKey))
	}
	if b.maxVal > limitValue {
		out = append(out, fmt.Sprintf("a value of %s is over 64 KiB", widgets.BytesText(int64(b.maxVal))))
	}
	if b.mutations > limitMutations {
		out = append(out, fmt.Sprintf("%d mutations are over %d", b.mutations, limitMutations))
	}
	return out
}
