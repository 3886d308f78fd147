package store

import (
	"bytes"
	"context"
	"fmt"

	"kvdeck/codec"
)

// Version is a cheap fingerprint of the store's content for change
// detection: seq moves on every commit with a set, the row count on inserts,
// deletes and sweeps.
type Version struct {
	Seq  int64
	Rows int64
}

// Seq returns the newest versionstamp number issued (kv_meta.seq).
func (s *Store) Seq(ctx context.Context) (int64, error) {
	var seq int64
	found, err := s.queryRow(ctx, "SELECT seq FROM kv_meta WHERE id = 0", nil, &seq)
	if err == nil && !found {
		err = fmt.Errorf("%w: kv_meta has no row 0", ErrNotStore)
	}
	return seq, err
}

// PrefixStats counts the rows under one top-level key part.
type PrefixStats struct {
	// Part is the first key part; zero when Undecodable.
	Part codec.Part
	// Undecodable groups the rows whose key does not decode.
	Undecodable bool
	Rows        int64
	Live        int64
	Expired     int64
	// Bytes is the encoded key plus value size of the rows.
	Bytes int64
}

// Stats summarises the whole store.
type Stats struct {
	Seq         int64
	Rows        int64
	Live        int64
	Expired     int64
	Undecodable int64
	// InvalidValues counts rows whose value is not valid JSON.
	InvalidValues int64
	// JournalMode is the embedded database's journal mode ("" remote).
	JournalMode string
	ByPrefix    []PrefixStats
}

// Stats scans every row (page by page) at now.
func (s *Store) Stats(ctx context.Context, now int64) (Stats, error) {
	var st Stats
	var err error
	if st.Seq, err = s.Seq(ctx); err != nil {
		return st, err
	}
	if s.target.Transport == TransportFile {
		if _, err := s.queryRow(ctx, "PRAGMA journal_mode", nil, &st.JournalMode); err != nil {
			return st, err
		}
	}
	var cur *PrefixStats
	var curRaw []byte
	err = s.Dump(ctx, nil, func(e Entry) error {
		st.Rows++
		live := e.Live(now)
		if live {
			st.Live++
		} else {
			st.Expired++
		}
		if !e.ValueValid() {
			st.InvalidValues++
		}
		var first codec.Part
		var raw []byte
		if e.KeyErr != nil || len(e.Key) == 0 {
			if e.KeyErr != nil {
				st.Undecodable++
			}
		} else {
			first = e.Key[0]
			raw = codec.MustEncode(codec.Key{first})
		}
		undecodable := e.KeyErr != nil
		if cur == nil || cur.Undecodable != undecodable || !bytes.Equal(curRaw, raw) {
			st.ByPrefix = append(st.ByPrefix, PrefixStats{Part: first, Undecodable: undecodable})
			cur = &st.ByPrefix[len(st.ByPrefix)-1]
			curRaw = raw
		}
		cur.Rows++
		cur.Bytes += int64(len(e.Raw) + len(e.Value))
		if live {
			cur.Live++
		} else {
			cur.Expired++
		}
		return nil
	})
	return st, err
}
