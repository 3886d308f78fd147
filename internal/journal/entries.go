package journal

import (
	"encoding/hex"
	"time"

	"kvdeck/codec"
	"kvdeck/store"
)

// List reads every entry, oldest first, with notes for what was skipped.
func (j *Journal) List() ([]Entry, []Note, error) {
	lines, notes, err := j.readLines()
	if err != nil {
		return nil, nil, err
	}
	return join(lines), notes, nil
}

// join makes entries of lines: an intent opens an entry, its outcome
// completes it. The writing process's own applied or not-applied wins
// over a settlement (Settle may have read the keys while the write was
// still on its way); a settlement wins over the writer's "unknown". An
// outcome whose intent is gone (dropped, torn) is dropped. Lines are read
// in file order, which is the order they were written: each entry's
// bound is the highest stamp recorded before its intent, and a stamp not
// above its own write's bound starts a new life of the database.
func join(lines []line) []Entry {
	var order []string
	byID := map[string]*Entry{}
	told := map[string]bool{} // the writer's own outcome was read
	var seen int64            // the highest stamp of the current life so far
	life := 0
	for _, l := range lines {
		r := l.rec
		switch r.T {
		case recIntent:
			if byID[r.ID] != nil {
				continue
			}
			e := intentEntry(r)
			e.bound, e.Life = seen, life
			byID[r.ID] = e
			order = append(order, r.ID)
		case recOutcome:
			e := byID[r.ID]
			unknown := store.Outcome(r.Outcome) == store.OutcomeUnknown
			if e == nil || (r.Settled && (told[r.ID] || e.Settled)) || (!r.Settled && unknown && e.Settled) {
				continue
			}
			if !r.Settled && !unknown {
				told[r.ID] = true
			}
			seen = max(seen, e.lifeBound(e.takeOutcome(&r)))
			if v, err := codec.ParseStamp(r.Stamp); err == nil && v > 0 && e.Outcome == store.OutcomeApplied {
				if v <= e.bound && e.Life == life {
					// Issued after its intent, yet not above a stamp
					// recorded before it: another life of the database.
					life++
					seen = 0
				}
				e.Life = life
				seen = max(seen, v)
			}
		}
	}
	out := make([]Entry, 0, len(order))
	for _, id := range order {
		out = append(out, *byID[id])
	}
	resolve(out)
	for i := range out {
		out[i].After = afterOf(out[i])
	}
	return out
}

// lifeBound is the stamp e's images show the database's life reached:
// the seq they were read at when recorded, else top, their highest
// stamp (an older kvdeck's, or a write that read no seq).
func (e *Entry) lifeBound(top int64) int64 {
	if e.seq > 0 {
		return e.seq
	}
	return top
}

// takeOutcome completes e with its outcome line r: the outcome, and
// the before-images (the outcome's own, in journals written before the
// intent held them, else what the intent's images leave once the rows
// the write kept are taken out). It returns the highest stamp among
// them.
func (e *Entry) takeOutcome(r *record) int64 {
	e.ended = true
	e.Outcome = store.Outcome(r.Outcome)
	e.Stamp = r.Stamp
	e.BeforeUnknown = r.BeforeUnknown
	e.Settled = r.Settled
	e.Why = r.Why
	e.Err = r.Err
	e.Before, e.of = e.Before[:0], e.of[:0]
	images := r.Before
	if e.Outcome == store.OutcomeApplied && !r.BeforeUnknown && len(images) == 0 {
		images = e.imagesLeft(r.Kept)
	}
	var top int64
	for _, b := range images {
		row, _ := b.row() // validated by parseLine
		e.Before = append(e.Before, row)
		e.of = append(e.of, b.Of)
		top = max(top, row.Ver)
	}
	return top
}

// resolve fills the rows entries refer to instead of repeating them (a
// restore's From, a before-image's Of) from the entries they name; an
// entry whose reference names an entry no longer in the journal is
// marked unresolved (it cannot be undone, nor its undo redone).
func resolve(entries []Entry) {
	r := resolver{entries: entries, at: make(map[string]int, len(entries)), byKey: map[int]map[string]int{}}
	for i, e := range entries {
		r.at[e.ID] = i
	}
	for i := range entries {
		e := &entries[i]
		for b := range e.of {
			if e.of[b] == "" {
				continue
			}
			src, ok := r.rowOf(e.of[b], e.Before[b].Key, 0)
			if !ok || src == nil {
				e.unresolved = true
				continue
			}
			e.Before[b].Value, e.Before[b].ExpiresAt = src.Value, copyInt(src.ExpiresAt)
			e.of[b] = ""
		}
		for x := range e.from {
			if e.from[x] == "" {
				continue
			}
			src, ok := r.rowOf(e.from[x], e.Restores[x].Key, 0)
			if !ok || src == nil {
				e.unresolved = true
				continue
			}
			put := *src
			put.ExpiresAt = copyInt(src.ExpiresAt)
			e.Restores[x].Put = &put
		}
	}
}

// resolver follows the references between entries' rows: entries by id
// (at) and each entry's before-images by key (byKey, built as asked).
type resolver struct {
	entries []Entry
	at      map[string]int
	byKey   map[int]map[string]int
}

// rowOf is entry id's before-image of k (nil: it had none), following
// references; ok is false when one names an entry no longer in the
// journal. depth bounds a cycle only a corrupt journal could make.
func (r *resolver) rowOf(id string, k []byte, depth int) (*store.RawRow, bool) {
	i, ok := r.at[id]
	if !ok || depth > len(r.entries) {
		return nil, false
	}
	e := &r.entries[i]
	m := r.byKey[i]
	if m == nil {
		m = make(map[string]int, len(e.Before))
		for b := range e.Before {
			m[string(e.Before[b].Key)] = b
		}
		r.byKey[i] = m
	}
	b, ok := m[string(k)]
	if !ok {
		return nil, true
	}
	if b < len(e.of) && e.of[b] != "" {
		src, ok := r.rowOf(e.of[b], k, depth+1)
		if !ok || src == nil {
			return nil, false
		}
		row := e.Before[b]
		row.Value, row.ExpiresAt = src.Value, copyInt(src.ExpiresAt)
		return &row, true
	}
	return &e.Before[b], true
}

// intentEntry is the entry an intent line opens: outcome unknown until
// its outcome line is read. Keys not written out are those of its
// mutations or restores, or of its before-images (an imaged write with
// neither: a sweep's delete).
func intentEntry(r record) *Entry {
	e := &Entry{ID: r.ID, Act: r.Act, Time: time.UnixMilli(r.At), Op: r.Op, Kind: r.Kind, Outcome: store.OutcomeUnknown,
		Undoes: r.Undoes, PID: r.PID, Host: r.Host, Setting: r.Setting.change()}
	if e.Act == "" {
		e.Act = e.ID
	}
	for _, k := range r.Keys {
		raw, _ := hex.DecodeString(k) // validated by parseLine
		e.Keys = append(e.Keys, raw)
	}
	for _, c := range r.Checks {
		k, _ := decodeKey(c.K)
		e.Checks = append(e.Checks, store.Check{Key: k, Versionstamp: c.Stamp})
	}
	e.pre, e.imaged, e.seq = r.Pre, r.Imaged, r.Seq
	derive := len(e.Keys) == 0
	seen := map[string]bool{}
	add := func(k []byte) {
		if derive && !seen[string(k)] {
			seen[string(k)] = true
			e.Keys = append(e.Keys, k)
		}
	}
	for _, m := range r.Muts {
		mu, _ := m.mutation()
		e.Mutations = append(e.Mutations, mu)
		e.hashes = append(e.hashes, m.VH)
		raw, _ := hex.DecodeString(m.K)
		add(raw)
	}
	for _, o := range r.Restores {
		op, _ := o.op()
		e.Restores = append(e.Restores, op)
		e.from = append(e.from, o.From)
		add(op.Key)
	}
	if r.Imaged && len(r.Muts) == 0 && len(r.Restores) == 0 {
		for _, p := range r.Pre {
			raw, _ := hex.DecodeString(p.K) // validated by parseLine
			add(raw)
		}
	}
	return e
}

// imagesLeft are the before-images an imaged intent recorded (Pre), less
// the rows at kept, which the write left in place: the rows it replaced
// or removed. None for an intent of an older kvdeck (its outcome holds
// them).
func (e *Entry) imagesLeft(kept []string) []rowRec {
	if len(kept) == 0 {
		return e.pre
	}
	drop := make(map[string]bool, len(kept))
	for _, k := range kept {
		drop[k] = true
	}
	var out []rowRec
	for _, b := range e.pre {
		if !drop[b.K] {
			out = append(out, b)
		}
	}
	return out
}

// afterOf is, for an applied entry whose before-images are known, the
// ver each key it changed was left at: the write's stamp for a key it
// set, 0 for a key whose row it removed. A key it deleted that had no row
// is not changed. nil when it cannot be known (not applied, before-images
// unknown, a set without a readable stamp).
func afterOf(e Entry) map[string]int64 {
	if e.Outcome != store.OutcomeApplied || e.BeforeUnknown {
		return nil
	}
	had := map[string]bool{}
	for _, b := range e.Before {
		had[string(b.Key)] = true
	}
	stamp := func() (int64, bool) {
		v, err := codec.ParseStamp(e.Stamp)
		return v, err == nil && v > 0
	}
	after := map[string]int64{}
	switch {
	case len(e.Restores) > 0:
		for _, o := range e.Restores {
			k := string(o.Key)
			if o.Put != nil {
				v, ok := stamp()
				if !ok {
					return nil
				}
				after[k] = v
			} else {
				delete(after, k)
				if had[k] {
					after[k] = 0
				}
			}
		}
	case len(e.Mutations) > 0:
		for _, m := range e.Mutations {
			enc, err := codec.Encode(m.Key)
			if err != nil {
				return nil
			}
			k := string(enc)
			if m.Type == store.MutationSet {
				v, ok := stamp()
				if !ok {
					return nil
				}
				after[k] = v
			} else {
				delete(after, k)
				if had[k] {
					after[k] = 0
				}
			}
		}
	default:
		// A sweep batch, DeleteRaw: Before holds the rows it deleted.
		for k := range had {
			after[k] = 0
		}
	}
	return after
}

// KeyText is an encoded key as people read it: the key text when it
// decodes, else 0x and its hex.
func KeyText(raw []byte) string {
	if k, err := codec.Decode(raw); err == nil {
		return codec.Format(k)
	}
	return "0x" + hex.EncodeToString(raw)
}
