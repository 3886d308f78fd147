package store

import (
	"encoding/json"

	"kvdeck/codec"
)

// Entry is one physical row of the kv table, decoded as far as it decodes.
type Entry struct {
	// Raw is the encoded key exactly as stored.
	Raw []byte
	// Key is the decoded key; nil when KeyErr is set.
	Key codec.Key
	// KeyErr explains why Raw does not decode (a foreign or corrupt row).
	KeyErr error
	// Value is the v column: JSON text as the writer stored it.
	Value []byte
	// Ver is the versionstamp number.
	Ver int64
	// ExpiresAt is the expiry in epoch milliseconds, nil for none.
	ExpiresAt *int64
}

// Versionstamp is Ver formatted as the reference's 20-digit stamp.
func (e Entry) Versionstamp() string { return codec.FormatStamp(e.Ver) }

// ValueValid reports whether Value is valid JSON (a foreign database may
// hold something else; it is shown raw and flagged, never trusted).
func (e Entry) ValueValid() bool { return json.Valid(e.Value) }

// Live reports whether the row is visible at now: expires_at IS NULL OR
// expires_at > now. A row whose expiry equals now is dead.
func (e Entry) Live(now int64) bool { return e.ExpiresAt == nil || *e.ExpiresAt > now }

// Decodable reports whether both key and value decode.
func (e Entry) Decodable() bool { return e.KeyErr == nil && e.ValueValid() }

// newEntry decodes a scanned row.
func newEntry(raw, value []byte, ver int64, expires *int64) Entry {
	e := Entry{Raw: raw, Value: value, Ver: ver, ExpiresAt: expires}
	e.Key, e.KeyErr = codec.Decode(raw)
	if e.KeyErr != nil {
		e.Key = nil
	}
	return e
}

// liveSQL is the reference's liveness rule; its one argument is now.
const liveSQL = "(expires_at IS NULL OR expires_at > ?)"
