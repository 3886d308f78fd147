package journal

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"time"
	"unicode/utf8"

	"kvdeck/codec"
	"kvdeck/store"
)

// A journal line is one JSON object that carries its own checksum:
//
//	{"c":"1a2b3c4d","r":{"t":"intent","id":"k3v9x2mq",...}}
//
// c is the CRC-32 (IEEE) of the bytes of r exactly as they stand in the
// line, in eight lowercase hex digits. A line whose checksum does not
// match (a torn tail after a crash, a partial write on a full disk, an
// edit) is skipped and named in a Note. The whole line stays valid JSON,
// so jq reads the file as it is.

const (
	linePrefix = `{"c":"`
	lineMiddle = `","r":`
	lineSuffix = `}`
	// crcDigits is the length of the hex checksum.
	crcDigits = 8
)

// The kinds of line.
const (
	// recIntent is written before a write is sent.
	recIntent = "intent"
	// recOutcome is written after it, or by Settle after reading the keys.
	recOutcome = "outcome"
)

// record is one line's body. An intent carries what the write is about to
// do; an outcome how it ended. Keys are hex of the encoded key; values are
// the text stored (v), or hex (vx) when they are not UTF-8.
type record struct {
	T  string `json:"t"`
	ID string `json:"id"`
	// At is when the line was written, epoch milliseconds (wall clock).
	At int64 `json:"at"`

	// Intent.
	// Act is the user action the write belongs to (store.Action): every
	// write of one command or key shares it. Lines of older kvdeck have
	// none: each write is then an action of its own, named by its ID.
	Act      string       `json:"act,omitempty"`
	Host     string       `json:"host,omitempty"`
	PID      int          `json:"pid,omitempty"`
	Op       string       `json:"op,omitempty"`
	Kind     string       `json:"kind,omitempty"`
	Keys     []string     `json:"keys,omitempty"`
	Checks   []checkRec   `json:"checks,omitempty"`
	Muts     []mutRec     `json:"muts,omitempty"`
	Restores []restoreRec `json:"restores,omitempty"`
	Undoes   string       `json:"undoes,omitempty"`
	Setting  *settingRec  `json:"setting,omitempty"`
	// Imaged: Pre holds the rows of the write's keys as read before it
	// was sent (a key not in Pre had none), synced before the commit,
	// which ran only if its keys were still so. Intents of an older
	// kvdeck have none: their outcome's Before holds the images.
	Imaged bool     `json:"img,omitempty"`
	Pre    []rowRec `json:"pre,omitempty"`
	// Seq is the store's seq as Pre was read (store.PendingWrite.Seq),
	// when the engine read it with the rows (a sweep's); 0: not recorded.
	Seq int64 `json:"seq,omitempty"`
	// raw, when set, stands for Keys and Pre (formatLine).
	raw rawRows

	// Outcome.
	Outcome string   `json:"outcome,omitempty"`
	Stamp   string   `json:"stamp,omitempty"`
	Before  []rowRec `json:"before,omitempty"`
	// Kept are the keys of an imaged write's Pre rows it left in place
	// though it applied (a sweep's delete skips a row rewritten since
	// it was read): no part of its undo.
	Kept          []string `json:"kept,omitempty"`
	BeforeUnknown bool     `json:"beforeUnknown,omitempty"`
	// Settled marks an outcome found by reading the keys (Settle), not
	// told by the process that made the write.
	Settled bool `json:"settled,omitempty"`
	// Why says what a settlement found (the evidence, or why it found
	// none).
	Why string `json:"why,omitempty"`
	Err string `json:"err,omitempty"`
}

type checkRec struct {
	K     string `json:"k"`
	Stamp string `json:"stamp"`
}

type mutRec struct {
	Type string  `json:"type"`
	K    string  `json:"k"`
	V    *string `json:"v,omitempty"`
	VX   string  `json:"vx,omitempty"`
	// VH stands for a value longer than inlineValue: its hash (valueHash),
	// enough to tell whether a row holds it (settling, undo's checks); the
	// value itself is journaled only if an undo takes it away.
	VH        string `json:"vh,omitempty"`
	ExpireIn  *int64 `json:"expireInMs,omitempty"`
	ExpiresAt *int64 `json:"expiresAt,omitempty"`
}

type restoreRec struct {
	K      string  `json:"k"`
	Expect int64   `json:"expectVer"`
	Put    *rowRec `json:"put,omitempty"`
	// From names the entry whose before-image of K is the row put back,
	// instead of writing that row a second time.
	From string `json:"from,omitempty"`
}

type rowRec struct {
	K   string  `json:"k"`
	V   *string `json:"v,omitempty"`
	VX  string  `json:"vx,omitempty"`
	Ver int64   `json:"ver"`
	Exp *int64  `json:"exp,omitempty"`
	// Of names the entry whose before-image of K holds this row's value
	// and expiry (an undo's before-images are the rows an earlier entry
	// recorded): they are not written a second time.
	Of string `json:"of,omitempty"`
}

// formatLine renders r as one checksummed line with its line feed.
func formatLine(r record) ([]byte, error) { return appendLine(nil, r) }

// appendLine appends r's line (formatLine) to dst: the body is written in
// place and its checksum filled in before it.
func appendLine(dst []byte, r record) ([]byte, error) {
	rows := r
	r.Keys, r.Pre = nil, nil
	body, err := json.Marshal(r)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	dst = slices.Grow(dst, len(linePrefix)+crcDigits+len(lineMiddle)+len(body)+rowsSize(&rows)+len(lineSuffix)+1)
	dst = append(append(append(dst, linePrefix...), "00000000"...), lineMiddle...)
	at := len(dst)
	dst = appendRows(append(dst, body[:len(body)-1]...), len(body) > 2, &rows)
	crc := crc32.ChecksumIEEE(dst[at:])
	hex.Encode(dst[start+len(linePrefix):], binary.BigEndian.AppendUint32(nil, crc))
	dst = append(dst, lineSuffix...)
	return append(dst, '\n'), nil
}

// errLine explains why a line was skipped.
var errLine = errors.New("not a journal line")

// parseLine reads one line (without its line feed). It never panics; any
// line that is not exactly what formatLine writes, with a matching
// checksum and a known kind, is refused.
func parseLine(line []byte) (record, error) {
	body, err := lineBody(line)
	if err != nil {
		return record{}, err
	}
	var r record
	if err := json.Unmarshal(body, &r); err != nil {
		return record{}, fmt.Errorf("%w: %w", errLine, err)
	}
	if err := r.validate(); err != nil {
		return record{}, fmt.Errorf("%w: %w", errLine, err)
	}
	return r, nil
}

// lineBody is the record text of a line whose checksum frame holds and
// matches it.
func lineBody(line []byte) ([]byte, error) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if !bytes.HasPrefix(line, []byte(linePrefix)) || !bytes.HasSuffix(line, []byte(lineSuffix)) {
		return nil, fmt.Errorf("%w: no checksum frame", errLine)
	}
	rest := line[len(linePrefix):]
	if len(rest) < crcDigits+len(lineMiddle)+len(lineSuffix) {
		return nil, fmt.Errorf("%w: truncated", errLine)
	}
	sum := rest[:crcDigits]
	var want [4]byte
	if _, err := hex.Decode(want[:], sum); err != nil || !bytes.Equal(bytes.ToLower(sum), sum) {
		return nil, fmt.Errorf("%w: malformed checksum", errLine)
	}
	rest = rest[crcDigits:]
	if !bytes.HasPrefix(rest, []byte(lineMiddle)) {
		return nil, fmt.Errorf("%w: no checksum frame", errLine)
	}
	body := rest[len(lineMiddle) : len(rest)-len(lineSuffix)]
	got := crc32.ChecksumIEEE(body)
	if uint32(want[0])<<24|uint32(want[1])<<16|uint32(want[2])<<8|uint32(want[3]) != got {
		return nil, fmt.Errorf("%w: checksum mismatch (a torn or altered line)", errLine)
	}
	return body, nil
}

// validate checks what the JSON decoder cannot: the kind, the id, and
// that every key and value decodes.
func (r record) validate() error {
	switch r.T {
	case recIntent, recOutcome:
	default:
		return fmt.Errorf("unknown line kind %q", r.T)
	}
	if r.ID == "" {
		return errors.New("no id")
	}
	if r.Seq < 0 {
		return fmt.Errorf("seq %d below 0", r.Seq)
	}
	if r.T == recOutcome {
		switch store.Outcome(r.Outcome) {
		case store.OutcomeApplied, store.OutcomeNotApplied, store.OutcomeUnknown:
		default:
			return fmt.Errorf("unknown outcome %q", r.Outcome)
		}
	}
	for _, k := range r.Keys {
		if _, err := hex.DecodeString(k); err != nil {
			return fmt.Errorf("key %q: %w", k, err)
		}
	}
	for _, c := range r.Checks {
		if _, err := decodeKey(c.K); err != nil {
			return err
		}
	}
	for _, m := range r.Muts {
		if _, err := m.mutation(); err != nil {
			return err
		}
	}
	for _, o := range r.Restores {
		if _, err := o.op(); err != nil {
			return err
		}
	}
	for _, rows := range [][]rowRec{r.Before, r.Pre} {
		for _, b := range rows {
			if _, err := b.row(); err != nil {
				return err
			}
		}
	}
	for _, k := range r.Kept {
		if _, err := hex.DecodeString(k); err != nil {
			return fmt.Errorf("kept key %q: %w", k, err)
		}
	}
	return r.Setting.validate()
}

// decodeKey reads a hex encoded key that must decode (a mutation's or a
// check's, which the engine took as a codec.Key).
func decodeKey(h string) (codec.Key, error) {
	raw, err := hex.DecodeString(h)
	if err != nil {
		return nil, fmt.Errorf("key %q: %w", h, err)
	}
	k, err := codec.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("key %s: %w", h, err)
	}
	return k, nil
}

// inlineValue is the longest mutation value the journal writes out; a
// longer one is journaled by its hash (valueHash).
const inlineValue = 64

// valueHash names a value by its hash (SHA-256, the first 16 bytes in
// hex): what the journal keeps of a long value it is about to write.
func valueHash(v []byte) string {
	sum := sha256.Sum256(v)
	return hex.EncodeToString(sum[:16])
}

// valueText splits a value into the text field (UTF-8) or the hex one.
func valueText(v []byte) (*string, string) {
	if utf8.Valid(v) {
		s := string(v)
		return &s, ""
	}
	return nil, hex.EncodeToString(v)
}

// valueBytes is the inverse of valueText.
func valueBytes(v *string, vx string) ([]byte, error) {
	if v != nil {
		if vx != "" {
			return nil, errors.New("a value in both v and vx")
		}
		return []byte(*v), nil
	}
	b, err := hex.DecodeString(vx)
	if err != nil {
		return nil, fmt.Errorf("value: %w", err)
	}
	return b, nil
}

func newRowRec(r store.RawRow) rowRec {
	v, vx := valueText(r.Value)
	return rowRec{K: hex.EncodeToString(r.Key), V: v, VX: vx, Ver: r.Ver, Exp: copyInt(r.ExpiresAt)}
}

// row is the row r records; for a reference (Of) its value and expiry
// are resolved later (resolve), from the entry it names.
func (r rowRec) row() (store.RawRow, error) {
	k, err := hex.DecodeString(r.K)
	if err != nil {
		return store.RawRow{}, fmt.Errorf("row key %q: %w", r.K, err)
	}
	if r.Of != "" {
		if r.V != nil || r.VX != "" || r.Exp != nil {
			return store.RawRow{}, errors.New("a row reference with a value")
		}
		return store.RawRow{Key: k, Ver: r.Ver}, nil
	}
	v, err := valueBytes(r.V, r.VX)
	if err != nil {
		return store.RawRow{}, err
	}
	return store.RawRow{Key: k, Value: v, Ver: r.Ver, ExpiresAt: copyInt(r.Exp)}, nil
}

func newMutRec(m store.Mutation) (mutRec, error) {
	enc, err := codec.Encode(m.Key)
	if err != nil {
		return mutRec{}, err
	}
	out := mutRec{Type: string(m.Type), K: hex.EncodeToString(enc), ExpiresAt: copyInt(m.ExpiresAt)}
	if m.Type == store.MutationSet {
		// The value as it will be stored (JSON.stringify's text); one the
		// engine will refuse is kept as given. A long one is journaled by
		// its hash.
		v := m.Value
		if n, err := codec.NormalizeJSON(v); err == nil {
			v = n
		}
		if len(v) > inlineValue {
			out.VH = valueHash(v)
		} else {
			out.V, out.VX = valueText(v)
		}
	}
	if m.ExpireIn != nil {
		ms := m.ExpireIn.Milliseconds()
		out.ExpireIn = &ms
	}
	return out, nil
}

func (m mutRec) mutation() (store.Mutation, error) {
	k, err := decodeKey(m.K)
	if err != nil {
		return store.Mutation{}, err
	}
	out := store.Mutation{Type: store.MutationType(m.Type), Key: k, ExpiresAt: copyInt(m.ExpiresAt)}
	switch out.Type {
	case store.MutationSet:
		if m.VH != "" {
			if m.V != nil || m.VX != "" {
				return store.Mutation{}, errors.New("a set with both a value and its hash")
			}
			break
		}
		if out.Value, err = valueBytes(m.V, m.VX); err != nil {
			return store.Mutation{}, err
		}
	case store.MutationDelete:
		if m.V != nil || m.VX != "" || m.VH != "" {
			return store.Mutation{}, errors.New("a delete with a value")
		}
	default:
		return store.Mutation{}, fmt.Errorf("mutation type %q", m.Type)
	}
	if m.ExpireIn != nil {
		d := time.Duration(*m.ExpireIn) * time.Millisecond
		out.ExpireIn = &d
	}
	return out, nil
}

// newRestoreRec records o; from, when set, names the entry whose
// before-image o puts back, which is then not written again.
func newRestoreRec(o store.RestoreOp, from string) restoreRec {
	out := restoreRec{K: hex.EncodeToString(o.Key), Expect: o.ExpectVer}
	switch {
	case o.Put != nil && from != "":
		out.From = from
	case o.Put != nil:
		put := newRowRec(*o.Put)
		out.Put = &put
	}
	return out
}

// op is the restore o records; one that puts back a row From names gets
// its value later (resolve): until then its Put holds only the key.
func (o restoreRec) op() (store.RestoreOp, error) {
	k, err := hex.DecodeString(o.K)
	if err != nil {
		return store.RestoreOp{}, fmt.Errorf("restore key %q: %w", o.K, err)
	}
	out := store.RestoreOp{Key: k, ExpectVer: o.Expect}
	switch {
	case o.From != "" && o.Put != nil:
		return store.RestoreOp{}, errors.New("a restore with both a row and a reference")
	case o.From != "":
		out.Put = &store.RawRow{Key: k}
	case o.Put != nil:
		put, err := o.Put.row()
		if err != nil {
			return store.RestoreOp{}, err
		}
		out.Put = &put
	}
	return out, nil
}

func copyInt(p *int64) *int64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
