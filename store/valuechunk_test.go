package store_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// readWhole reads a value chunk by chunk, as the reader and the pager do.
func readWhole(t *testing.T, s *store.Store, raw []byte, chunk int) ([]byte, store.ValuePart) {
	t.Helper()
	var out []byte
	var first store.ValuePart
	for off := int64(0); ; {
		p, err := s.ValueChunk(storetest.Ctx(t), raw, off, chunk)
		if err != nil {
			t.Fatal(err)
		}
		if off == 0 {
			first = p
		}
		if len(p.Bytes) > chunk {
			t.Fatalf("a chunk of %d bytes, asked for %d", len(p.Bytes), chunk)
		}
		out = append(out, p.Bytes...)
		off += int64(len(p.Bytes))
		if len(p.Bytes) == 0 || off >= p.Size {
			return out, first
		}
	}
}

// TestValueChunkReadsAWholeValueInParts: a value of several MB comes back
// whole, in chunks of the size asked, with its size in bytes; a TEXT
// value that is not UTF-8 (a foreign writer's) comes back byte for byte;
// an absent key is not found; NULL is said so.
func TestValueChunkReadsAWholeValueInParts(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{})
		ctx := storetest.Ctx(t)

		// 3 MB of JSON text with multibyte characters, so that bytes and
		// characters differ and chunks cut runes in two.
		var big bytes.Buffer
		big.WriteString(`["`)
		for big.Len() < 3<<20 {
			big.WriteString("héllo wörld ✓ ")
		}
		big.WriteString(`"]`)
		key := codec.Key{codec.String("big")}
		if _, err := s.Set(ctx, key, big.Bytes(), nil); err != nil {
			t.Fatal(err)
		}
		raw, err := codec.Encode(key)
		if err != nil {
			t.Fatal(err)
		}
		got, first := readWhole(t, s, raw, store.ValueChunkSize)
		if !first.Found || first.Size != int64(big.Len()) || first.Ver == 0 {
			t.Fatalf("first chunk: found %v, size %d (want %d), ver %d", first.Found, first.Size, big.Len(), first.Ver)
		}
		if !bytes.Equal(got, big.Bytes()) {
			t.Fatalf("read %d bytes back, not the %d stored", len(got), big.Len())
		}

		// A chunk in the middle, at an odd offset.
		p, err := s.ValueChunk(ctx, raw, 1000001, 7)
		if err != nil || !bytes.Equal(p.Bytes, big.Bytes()[1000001:1000008]) {
			t.Fatalf("middle chunk %q, %v", p.Bytes, err)
		}
		// Past the end: nothing, the size still said.
		p, err = s.ValueChunk(ctx, raw, int64(big.Len())+10, 10)
		if err != nil || len(p.Bytes) != 0 || p.Size != int64(big.Len()) {
			t.Fatalf("past the end: %d bytes, size %d, %v", len(p.Bytes), p.Size, err)
		}

		// A foreign TEXT value that is not UTF-8, with an escape in it.
		odd := []byte("\"\xff\xfe\x1b[31m\xc3\"")
		oddRaw, _ := codec.Encode(codec.Key{codec.String("odd")})
		storetest.Exec(t, url, "INSERT INTO kv (k, v, ver) VALUES (x'"+hex.EncodeToString(oddRaw)+"', CAST(x'"+hex.EncodeToString(odd)+"' AS TEXT), 99)")
		got, first = readWhole(t, s, oddRaw, 3)
		if !bytes.Equal(got, odd) || first.Size != int64(len(odd)) {
			t.Fatalf("non-UTF-8 TEXT read back as %q (size %d), stored %q", got, first.Size, odd)
		}
		var typ string
		if err := storetest.RawDB(t, url).QueryRowContext(ctx, "SELECT typeof(v) FROM kv WHERE ver = 99").Scan(&typ); err != nil || typ != "text" {
			t.Fatalf("the foreign value is stored as %q (%v), not text", typ, err)
		}

		absent, _ := codec.Encode(codec.Key{codec.String("absent")})
		if p, err := s.ValueChunk(ctx, absent, 0, 10); err != nil || p.Found {
			t.Fatalf("absent key: %+v, %v", p, err)
		}
		if _, err := s.ValueChunk(ctx, raw, -1, 10); !errors.Is(err, store.ErrInvalidArgument) {
			t.Fatalf("negative offset: %v", err)
		}
	})
}

// TestValueChunkFor: about 16 chunks a value, 256 KiB to 8 MiB each.
func TestValueChunkFor(t *testing.T) {
	for _, c := range []struct {
		size int64
		want int
	}{{0, 256 << 10}, {3 << 20, 256 << 10}, {64 << 20, 4 << 20}, {1 << 30, 8 << 20}} {
		if got := store.ValueChunkFor(c.size); got != c.want {
			t.Errorf("ValueChunkFor(%d) = %d, want %d", c.size, got, c.want)
		}
	}
}

// TestGetRawHeadCapsTheValue: a value over the head comes back as its
// first n bytes, its whole size, its stamp and expiry, and whether the
// whole is JSON (decided by the database); a value within it comes back
// whole, as GetRaw reads it; an invalid whole value is said so; an absent
// key is not found.
func TestGetRawHeadCapsTheValue(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{})
		ctx := storetest.Ctx(t)
		big := append(append([]byte(`["`), bytes.Repeat([]byte("héllo ✓ "), 40000)...), `"]`...)
		key := codec.Key{codec.String("big")}
		if _, err := s.Set(ctx, key, big, nil); err != nil {
			t.Fatal(err)
		}
		raw, _ := codec.Encode(key)
		h, found, err := s.GetRawHead(ctx, raw, 1000)
		if err != nil || !found {
			t.Fatalf("head: %v, found %v", err, found)
		}
		whole, _, _ := s.GetRaw(ctx, raw)
		if !bytes.Equal(h.Value, big[:1000]) || h.Size != int64(len(big)) || !h.Cut() || !h.Valid() || h.Ver != whole.Ver || h.Key == nil {
			t.Fatalf("head: %d bytes, size %d (want %d), cut %v, valid %v, ver %d (want %d)", len(h.Value), h.Size, len(big), h.Cut(), h.Valid(), h.Ver, whole.Ver)
		}
		h, _, _ = s.GetRawHead(ctx, raw, len(big))
		if !bytes.Equal(h.Value, whole.Value) || h.Cut() || !h.Valid() {
			t.Fatalf("a head as long as the value: %d bytes, cut %v", len(h.Value), h.Cut())
		}

		// Not JSON as a whole, though its head is a JSON prefix.
		bad := append(append([]byte{}, big[:5000]...), '}')
		oddRaw, _ := codec.Encode(codec.Key{codec.String("bad")})
		storetest.Exec(t, url, "INSERT INTO kv (k, v, ver) VALUES (x'"+hex.EncodeToString(oddRaw)+"', CAST(x'"+hex.EncodeToString(bad)+"' AS TEXT), 99)")
		if h, _, err = s.GetRawHead(ctx, oddRaw, 100); err != nil || !h.Cut() || h.Valid() || h.Size != int64(len(bad)) {
			t.Fatalf("invalid value: cut %v, valid %v, size %d, %v", h.Cut(), h.Valid(), h.Size, err)
		}
		absent, _ := codec.Encode(codec.Key{codec.String("absent")})
		if _, found, err := s.GetRawHead(ctx, absent, 10); err != nil || found {
			t.Fatalf("absent key: %v, %v", found, err)
		}
	})
}
