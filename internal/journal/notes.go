package journal

import (
	"fmt"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
)

// leasePrefix is the first key part of the reference's leases
// (docs: the coordination records), whose stamp is the holder's fencing
// token.
const leasePrefix = "dwk_lease"

// PlanNotes are what a plan changes besides the rows it puts back, for
// every preview to say: restored rows get new stamps, a lease put back
// is held by nobody (its stamp was its holder's token), and a setting is
// set back (settingNotes).
func PlanNotes(p Plan) []string {
	var notes []string
	puts, leases := 0, 0
	var lease []byte
	var exp *int64
	for _, op := range p.Ops {
		if op.Put == nil {
			continue
		}
		puts++
		if k, err := codec.Decode(op.Key); err == nil && len(k) > 0 && k[0] == codec.String(leasePrefix) {
			leases++
			if lease == nil {
				lease, exp = op.Key, op.Put.ExpiresAt
			}
		}
	}
	if puts > 0 {
		notes = append(notes, "restored rows get a new versionstamp: a client holding the old one must read again")
	}
	if leases > 0 {
		n := fmt.Sprintf("%s is a lease", KeyText(lease))
		if leases > 1 {
			n = fmt.Sprintf("%s and %d more keys are leases", KeyText(lease), leases-1)
		}
		n += ": it comes back under a new stamp, and a lease's stamp is its holder's fencing token, so whoever held it (kvdeck included) can no longer renew or release it; nobody holds it"
		if exp != nil {
			n += " until it expires at " + usertext.FormatTime(*exp)
		}
		n += ", and lease break frees it sooner"
		notes = append(notes, n)
	}
	return append(notes, settingNotes(p)...)
}

// DoneText says what the first n of a plan's ops did, as the CLI and
// the TUI report an undo or a redo: "1 key put back", "2 keys deleted"
// (an undo of a set that created them), "3 keys put back and 1 deleted".
func DoneText(p Plan, n int) string {
	put, deleted := 0, 0
	for _, op := range p.Ops[:min(max(n, 0), len(p.Ops))] {
		if op.Put != nil {
			put++
		} else {
			deleted++
		}
	}
	keys := func(n int) string {
		if n == 1 {
			return "1 key"
		}
		return fmt.Sprintf("%d keys", n)
	}
	switch {
	case put > 0 && deleted > 0:
		return fmt.Sprintf("%s put back and %d deleted", keys(put), deleted)
	case deleted > 0:
		return keys(deleted) + " deleted"
	}
	return keys(put) + " put back"
}
