package coord

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"kvdeck/codec"
	"kvdeck/store"
)

// MetaReport is the dwk_meta rows at now.
type MetaReport struct {
	// ModeFound is true when the mode marker exists; ModeRaw is its JSON
	// text and Mode its string value ("" when it is not a string).
	ModeFound bool
	Mode      string
	ModeRaw   string
	// Probes are leftover startup-probe rows.
	Probes []codec.Key
}

// metaCollector gathers the live dwk_meta rows.
type metaCollector struct {
	now      int64
	rep      MetaReport
	findings []Finding
}

func (c *metaCollector) add(e store.Entry) {
	if !e.Live(c.now) {
		return
	}
	second, _ := keyString(e.Key, 1)
	switch {
	case len(e.Key) == 2 && second == "mode":
		c.rep.ModeFound, c.rep.ModeRaw = true, string(e.Value)
		if err := json.Unmarshal(e.Value, &c.rep.Mode); err != nil || c.rep.Mode != ModeCentral {
			c.findings = append(c.findings, Finding{Severity: SeverityWarning, Code: "meta.mode", Key: e.Key,
				Message: fmt.Sprintf("the mode marker is %s, not %q: services expecting central mode refuse this store or run in another mode", truncate(string(e.Value), 60), ModeCentral)})
		}
	case len(e.Key) == 3 && second == "probe":
		c.rep.Probes = append(c.rep.Probes, e.Key)
		c.findings = append(c.findings, Finding{Severity: SeverityWarning, Code: "meta.probe-leftover", Key: e.Key,
			Message: fmt.Sprintf("leftover startup probe (value %s, written at versionstamp %s): a service crashed between writing and deleting it; delete the row", truncate(string(e.Value), 30), e.Versionstamp())})
	default:
		c.findings = append(c.findings, Finding{Severity: SeverityInfo, Code: "meta.unknown", Key: e.Key,
			Message: "a dwk_meta row that is neither the mode marker nor a probe"})
	}
}

// StoreHealth is what every row of the store shows.
type StoreHealth struct {
	Rows int64
	// Expired counts rows expired but not swept; OldestExpiredAt is the
	// earliest expiry among them, OldestExpiredKey its key (nil when it
	// does not decode).
	Expired          int64
	OldestExpiredAt  *int64
	OldestExpiredKey codec.Key
	// Undecodable counts rows whose key does not decode; UndecodableSample
	// is the hex of the first.
	Undecodable       int64
	UndecodableSample string
	// NullKeys counts, among Undecodable, the rows whose key is NULL;
	// NullValues, among InvalidJSON, those whose value is NULL.
	NullKeys, NullValues int64
	// TypedKeys counts, among Undecodable, the rows whose key is a number
	// or TEXT, not a BLOB (store.Stats.TypedKeys).
	TypedKeys int64
	// InvalidJSON counts rows whose value is not JSON; InvalidSample is the
	// key of the first (nil when its key does not decode either).
	InvalidJSON   int64
	InvalidSample codec.Key
	// Malformed counts rows whose ver or expires_at is not an integer as
	// the reference writes it (store.Entry.Malformed); MalformedSample is
	// the first one's key (nil when it does not decode) and MalformedNote
	// what is wrong with it.
	Malformed       int64
	MalformedSample codec.Key
	MalformedNote   string
	// MaxVer is the highest stamp in kv; Seq kv_meta's seq read after
	// every row (nil when unknown).
	MaxVer int64
	Seq    *int64
}

// storeCollector turns the store's health into findings.
type storeCollector struct {
	now int64
	h   StoreHealth
}

// storeHealth aggregates every row in SQL (store.Census) and reads the
// one row each finding names: a few requests whatever the store's size.
func storeHealth(ctx context.Context, s *store.Store, now int64) (StoreHealth, error) {
	st, err := s.Census(ctx, store.CensusOptions{Now: now, OldestKey: true, Check: true})
	if err != nil {
		return StoreHealth{}, err
	}
	h := StoreHealth{Rows: st.Rows, Expired: st.Expired, OldestExpiredAt: st.OldestExpired,
		Undecodable: st.Undecodable, InvalidJSON: st.InvalidValues, Malformed: st.Malformed, MaxVer: st.MaxVer, Seq: st.SeqAfter,
		NullKeys: st.NullKeys, NullValues: st.NullValues, TypedKeys: st.TypedKeys}
	h.OldestExpiredKey = decodeOrNil(st.OldestExpiredKey)
	if st.FirstUndecodable != nil {
		h.UndecodableSample = hex.EncodeToString(st.FirstUndecodable)
	}
	h.InvalidSample = decodeOrNil(st.FirstInvalid)
	if st.FirstMalformed != nil {
		h.MalformedSample = decodeOrNil(st.FirstMalformed)
		e, found, err := s.GetRaw(ctx, st.FirstMalformed)
		if err != nil {
			return h, err
		}
		if found {
			h.MalformedNote = e.Malformed
		}
	} else if h.Malformed > 0 {
		h.MalformedNote = "a row whose key is NULL" // no key to read it by
	}
	return h, nil
}

// decodeOrNil is the decoded key, nil when raw is nil or does not decode.
func decodeOrNil(raw []byte) codec.Key {
	if raw == nil {
		return nil
	}
	k, err := codec.Decode(raw)
	if err != nil {
		return nil
	}
	return k
}

func (c *storeCollector) finish() []Finding {
	var out []Finding
	h := c.h
	if h.Expired > 0 {
		age := c.now - *h.OldestExpiredAt
		out = append(out, Finding{Severity: lateness(age), Code: "store.expired-unswept", Key: h.OldestExpiredKey,
			Message: fmt.Sprintf("%d expired row(s) not swept, the oldest expired %s ago (%s): invisible to reads but still stored; if this grows no sweeper is running (kvdeck sweep removes them)", h.Expired, span(age), when(*h.OldestExpiredAt))})
	}
	if h.Undecodable > h.TypedKeys {
		first := "first: " + truncate(h.UndecodableSample, 80)
		switch {
		case h.NullKeys == h.Undecodable-h.TypedKeys:
			first = "every one a NULL key"
		case h.NullKeys > 0:
			first += fmt.Sprintf("; %d of them a NULL key", h.NullKeys)
		}
		out = append(out, Finding{Severity: SeverityWarning, Code: "store.undecodable", Key: nil,
			Message: fmt.Sprintf("%d row(s) whose key does not decode (%s): not written by the reference codec; kvdeck dump shows them raw", h.Undecodable-h.TypedKeys, first)})
	}
	if h.TypedKeys > 0 {
		out = append(out, Finding{Severity: SeverityWarning, Code: "store.typed-keys", Key: nil,
			Message: fmt.Sprintf("%d row(s) whose key is a number or TEXT, not a BLOB: another program's; SQLite orders them before every key, so no read by key or range finds them (the reference's included) and dump leaves them out; see them with SELECT * FROM kv WHERE k < x''", h.TypedKeys)})
	}
	if h.InvalidJSON > 0 {
		null := ""
		if h.NullValues > 0 {
			null = fmt.Sprintf(", %d of them NULL", h.NullValues)
		}
		out = append(out, Finding{Severity: SeverityWarning, Code: "store.invalid-json", Key: h.InvalidSample,
			Message: fmt.Sprintf("%d row(s) whose value is not valid JSON%s (the key shown is the first): services reading them fail", h.InvalidJSON, null)})
	}
	if h.Seq != nil && h.MaxVer > *h.Seq {
		out = append(out, Finding{Severity: SeverityError, Code: "store.stamps-above-seq",
			Message: fmt.Sprintf("kv holds stamps up to %d but kv_meta.seq is %d: the next commits issue stamps that rows already have, so versionstamp checks can pass against the wrong write; raise seq to %d (UPDATE kv_meta SET seq = %d WHERE id = 0) before anything writes", h.MaxVer, *h.Seq, h.MaxVer, h.MaxVer)})
	}
	if h.Malformed > 0 {
		out = append(out, Finding{Severity: SeverityWarning, Code: "store.malformed-row", Key: h.MalformedSample,
			Message: fmt.Sprintf("%d row(s) whose ver or expires_at is not an integer as the reference writes it (the key shown is the first: %s): written by another writer; kvdeck reads them as SQL compares them, services may not", h.Malformed, h.MalformedNote)})
	}
	return out
}
