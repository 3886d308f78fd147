package store

import (
	"bytes"
	"database/sql"
	"errors"
	"testing"

	"kvdeck/codec"
)

// FuzzCensusKeyGrammar guards the key grammar the census writes in SQL
// (firstLenSQL, firstEndSQL, fastKeySQL, walkKeySQL: a second
// implementation on purpose, so that the census reads keys where they
// lie) against codec's. The SQL checks a key's structure, codec its
// content too (a string of invalid UTF-8), so for any key:
//
//   - a key codec decodes is one the walk and the census's check
//     (decodesSQL, its fast shapes or the walk) decode;
//   - a key whose first error in codec is one of structure (a missing
//     terminator, a truncated part, a bad tag, boolean byte or NaN) is
//     one they refuse;
//   - a key they decode is one codec decodes, or refuses for its
//     content only;
//   - the first part's length is codec's (NULL where the part does not
//     decode, or holds an escaped 0x00), and the next boundary's bound
//     lies past the key.
func FuzzCensusKeyGrammar(f *testing.F) {
	for _, k := range [][]byte{
		{}, {0x02, 'a', 0x00}, {0x02, 'a', 0x00, 0x07, 0x00, 0x02, 'b', 0x00}, {0x02, 'a', 0x00, 0xFF, 'b', 0x00},
		{0x01, 0x00, 0xFF, 0x00}, {0x03, 0x80, 0, 0, 0, 0, 0, 0, 0}, {0x03, 0xFF, 0xF8, 0, 0, 0, 0, 0, 0}, {0x03, 0x80},
		{0x04, 0, 0, 0, 0, 0, 0, 0, 1, 0x05, 0x01}, {0x05, 0x02}, {0x05}, {0x06}, {0xFF}, {0x02, 0xC3, 0x28, 0x00},
		{0x02, 'a', 0x00, 0x02, 0xFF, 0xFE, 0x00, 0x03}, codec.MustEncode(codec.Key{codec.String("dwk_lease"), codec.Number(1), codec.Bool(true)}),
	} {
		f.Add(k)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	f.Cleanup(func() { db.Close() })
	q := "SELECT " + walkKeySQL() + ", " + decodesSQL(firstLenSQL("k")) + ", " + firstLenSQL("k") + ", " + firstEndSQL("k") + " FROM (SELECT CAST(? AS BLOB) AS k)"
	stmt, err := db.Prepare(q)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, k []byte) {
		if k == nil {
			k = []byte{}
		}
		var walk, decodes bool
		var firstLen sql.NullInt64
		var end []byte
		if err := stmt.QueryRow(k).Scan(&walk, &decodes, &firstLen, &end); err != nil {
			t.Fatalf("%x: %v", k, err)
		}
		_, err := codec.Decode(k)
		content := errors.Is(err, codec.ErrInvalidUTF8)
		switch {
		case err == nil && (!walk || !decodes):
			t.Fatalf("%x decodes in codec; the SQL says walk %v, census check %v", k, walk, decodes)
		case err != nil && !content && (walk || decodes):
			t.Fatalf("%x: codec refuses its structure (%v); the SQL says walk %v, census check %v", k, err, walk, decodes)
		}
		if len(k) > 0 && bytes.Compare(end, k) <= 0 {
			t.Fatalf("%x: the next boundary's bound %x is not past the key", k, end)
		}
		_, n, perr := codec.DecodePart(k)
		switch {
		case len(k) == 0:
			if !firstLen.Valid || firstLen.Int64 != 0 {
				t.Fatalf("the empty key's first part: %v, want 0", firstLen)
			}
		case perr == nil && !escaped(k[:n]):
			if !firstLen.Valid || firstLen.Int64 != int64(n) {
				t.Fatalf("%x: first part of %d bytes in codec, %v in SQL", k, n, firstLen)
			}
		case perr != nil && !errors.Is(perr, codec.ErrInvalidUTF8) && firstLen.Valid:
			t.Fatalf("%x: codec refuses the first part (%v); SQL gives it %d bytes", k, perr, firstLen.Int64)
		}
	})
}

// escaped reports whether a bytes or string part holds an escaped 0x00
// (0x00 0xFF): the census walks such a range row by row.
func escaped(part []byte) bool {
	return len(part) > 0 && (part[0] == byte(codec.KindBytes) || part[0] == byte(codec.KindString)) && bytes.Contains(part, []byte{0x00, 0xFF})
}
