package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"kvdeck/codec"
)

// The census's statements. One statement covers a window of rows from a
// cursor: it finds the window's end (an index-only OFFSET), then the
// top-level prefix boundaries inside it by seeking from one to the next
// through the primary key (from a boundary b, the next one is the
// smallest key at or after the end of b's first part), then aggregates
// each prefix's range [b, next boundary) twice with plain range
// aggregates: its rows whose key decodes, and those whose key does not.
// A key decodes when it is one of the common shapes checked by plain
// expressions (the first part, then nothing, or one fixed-size part, or
// one bytes/string part without an escaped 0x00), else when a recursive
// walk over its parts (run for that row only) ends exactly at its end.
// Every range's figures travel as one JSON array.

// censusQuery is what one census statement is built from.
type censusQuery struct {
	lo, hi    []byte
	window    int
	now, soon int64
	hist      ExpiringOptions
	// keyless also aggregates the rows whose k is NULL (first window of a
	// whole-store census: no key range holds them).
	keyless bool
	// check also checks every row (CensusOptions.Check): its key's
	// structure past the first part, its value's JSON, its columns' types.
	check bool
	// details also finds the expiry details (CensusOptions.Expiries).
	details bool
}

// Parameters by number: every statement binds them in this order.
const (
	pNow    = "?1"
	pSoon   = "?2"
	pLo     = "?3"
	pHi     = "?4"
	pWindow = "?5"
	pSlices = 6 // the slices' bounds follow, two each
)

// nanOK is true when the 8 bytes b (an SQL expression) encode a number
// that is not NaN.
func nanOK(b string) string {
	return fmt.Sprintf("(%[1]s <= x'FFF0000000000000' AND %[1]s >= x'000FFFFFFFFFFFFF')", b)
}

// firstEndSQL is where the boundary s's first part ends, as a BLOB bound
// for the next seek: the part followed by 0xFF (above every key that has
// this first part: a tag, or the end), or just after s when the part is
// truncated; an unknown tag byte followed by 0xFF (every key it starts is
// undecodable: one range). A string part with an escaped 0x00 gives a bound below s:
// the seek then takes the next key (one range per such row).
func firstEndSQL(s string) string {
	t := "substr(" + s + ", 1, 1)"
	return "CAST(max(" + s + " || x'00', coalesce(CASE" +
		" WHEN " + t + " IN (x'03', x'04') AND length(" + s + ") >= 9 THEN substr(" + s + ", 1, 9) || x'FF'" +
		" WHEN " + t + " = x'05' AND length(" + s + ") >= 2 THEN substr(" + s + ", 1, 2) || x'FF'" +
		" WHEN " + t + " IN (x'01', x'02') THEN substr(" + s + ", 1, nullif(instr(substr(" + s + ", 2), x'00'), 0) + 1) || x'FF'" +
		" WHEN length(" + s + ") > 0 AND " + t + " NOT IN (x'01', x'02', x'03', x'04', x'05') THEN " + t + " || x'FF' END, '')) AS BLOB)"
}

// firstLenSQL is the length of the boundary s's first part when it is
// well formed and has no escaped 0x00 (0 for the empty key), else NULL:
// the rows of its range are then all checked by the walk.
func firstLenSQL(s string) string {
	t := "substr(" + s + ", 1, 1)"
	str := "nullif(instr(substr(" + s + ", 2), x'00'), 0) + 1"
	return "(CASE WHEN length(" + s + ") = 0 THEN 0" +
		" WHEN " + t + " = x'03' AND length(" + s + ") >= 9 AND " + nanOK("substr("+s+", 2, 8)") + " THEN 9" +
		" WHEN " + t + " = x'04' AND length(" + s + ") >= 9 THEN 9" +
		" WHEN " + t + " = x'05' AND substr(" + s + ", 2, 1) IN (x'00', x'01') THEN 2" +
		" WHEN " + t + " IN (x'01', x'02') AND substr(" + s + ", " + str + " + 1, 1) <> x'FF' THEN " + str +
		" END)"
}

// fastKeySQL is true for a key k of a range whose first part is l bytes
// long when what follows the first part is nothing, one fixed-size part,
// or one bytes/string part whose only 0x00 is its terminator.
func fastKeySQL(l string) string {
	t := "substr(k, " + l + " + 1, 1)"
	return "coalesce(length(k) = " + l +
		" OR (" + t + " = x'04' AND length(k) = " + l + " + 9)" +
		" OR (" + t + " = x'03' AND length(k) = " + l + " + 9 AND " + nanOK("substr(k, "+l+" + 2, 8)") + ")" +
		" OR (" + t + " = x'05' AND length(k) = " + l + " + 2 AND substr(k, " + l + " + 2, 1) IN (x'00', x'01'))" +
		" OR (" + t + " IN (x'01', x'02') AND instr(substr(k, " + l + " + 2), x'00') = length(k) - " + l + " - 1), 0)"
}

// walkKeySQL is true when the key k decodes: a recursive walk over its
// parts, (o, m) being the byte it reached and whether that byte is inside
// a bytes/string payload; a payload ends at its first 0x00 not followed
// by 0xFF (the escape of a data 0x00), as codec reads it.
func walkKeySQL() string {
	z := "(o + nullif(instr(substr(k, o), x'00'), 0) - 1)"
	o2 := "CASE WHEN m = 0 THEN CASE substr(k, o, 1)" +
		" WHEN x'01' THEN o + 1 WHEN x'02' THEN o + 1" +
		" WHEN x'03' THEN CASE WHEN length(k) >= o + 8 AND " + nanOK("substr(k, o + 1, 8)") + " THEN o + 9 END" +
		" WHEN x'04' THEN CASE WHEN length(k) >= o + 8 THEN o + 9 END" +
		" WHEN x'05' THEN CASE WHEN substr(k, o + 1, 1) IN (x'00', x'01') THEN o + 2 END END" +
		" ELSE " + z + " + 1 + (substr(k, " + z + " + 1, 1) = x'FF') END"
	m2 := "CASE WHEN m = 0 THEN substr(k, o, 1) IN (x'01', x'02') ELSE substr(k, " + z + " + 1, 1) = x'FF' END"
	return "EXISTS (WITH RECURSIVE p(o, m) AS (SELECT 1, 0 UNION ALL SELECT " + o2 + ", " + m2 +
		" FROM p WHERE o <= length(k)) SELECT 1 FROM p WHERE m = 0 AND o = length(k) + 1)"
}

// keyHex renders a key for JSON: "x" and its hex, NULL for NULL (hex()
// alone gives ” for NULL, the empty key's form).
func keyHex(k string) string {
	return "(CASE WHEN " + k + " IS NOT NULL THEN 'x' || hex(" + k + ") END)"
}

// noBlob renders an expiry for JSON, which holds no BLOB: a BLOB
// expires_at is no expiry, like a TEXT one.
func noBlob(e string) string {
	return "(CASE WHEN typeof(" + e + ") = 'blob' THEN '' ELSE " + e + " END)"
}

// aggSQL is one range's figures as a JSON array of two arrays, the rows
// of kv that where selects whose key decodes (ok), then the others (keys
// in hex); parseFigures reads each. The per-row values are computed once
// each, in a subquery SQLite runs as a co-routine (its LIMIT keeps it
// from being flattened into the aggregate, which would evaluate them
// once per use).
func aggSQL(hist ExpiringOptions, where, ok string) string {
	whole := func(col string) string {
		return fmt.Sprintf("(typeof(%[1]s) = 'integer' OR (typeof(%[1]s) = 'real' AND %[1]s = CAST(%[1]s AS INTEGER)))", col)
	}
	// A NULL v (another program's schema) has no length and is no JSON:
	// it counts 0 bytes and as an invalid value.
	row := "SELECT k, expires_at AS e, (expires_at IS NULL OR expires_at > " + pNow + ") AS live, " +
		"coalesce(length(k), 0) + coalesce(length(CAST(v AS BLOB)), 0) AS b, " +
		"coalesce(NOT json_valid(CAST(v AS TEXT)), 1) AS bad, " +
		"NOT (" + whole("ver") + " AND (expires_at IS NULL OR " + whole("expires_at") + ")) AS odd, " +
		"CASE WHEN typeof(ver) IN ('integer', 'real') THEN CAST(ver AS INTEGER) + (ver > CAST(ver AS INTEGER)) END AS mv, " +
		"v IS NULL AS nv, " + ok + " AS ok FROM kv WHERE " + where + " LIMIT -1"
	cols := func(f string) string {
		a := func(fn string) string { return fn + " FILTER (WHERE " + f + ")" }
		c := []string{a("count(*)"), a("sum(live)"), a("sum(b)"), a("sum(CASE WHEN live THEN 0 ELSE b END)"),
			a("sum(live AND e IS NOT NULL AND e <= " + pSoon + ")"),
			noBlob(a("min(CASE WHEN live THEN e END)")), noBlob(a("min(CASE WHEN NOT live THEN e END)")),
			a("sum(bad)"), keyHex(a("min(CASE WHEN bad THEN k END)")), a("sum(odd)"), keyHex(a("min(CASE WHEN odd THEN k END)")), a("max(mv)"), a("sum(nv)"), keyHex(a("min(k)"))}
		for i := range hist.Buckets {
			// The slice bounds are integers computed in Go: the statement
			// compares plain numbers.
			c = append(c, a(fmt.Sprintf("sum(live AND e IS NOT NULL AND e > ?%d AND e <= ?%d)", pSlices+2*i, pSlices+2*i+1)))
		}
		return "json_array(" + strings.Join(c, ", ") + ")"
	}
	return "(SELECT json_array(" + cols("ok") + ", " + cols("NOT ok") + ") FROM (" + row + "))"
}

// leanSQL is one range's figures without the row checks, in the layout
// of aggSQL's first array (its second with second: an empty first): plain aggregates over
// the rows where selects, few expressions per row (each costs about what
// reading a column does), the soon count and the slices only when asked.
func leanSQL(q censusQuery, where string, second bool) string {
	dead := "expires_at <= " + pNow
	expired := "count(*) FILTER (WHERE " + dead + ")"
	size := "sum(length(k) + coalesce(length(CAST(v AS BLOB)), 0))" // a NULL v (another program's) is 0 bytes
	// The expiry details: the expired rows' bytes, the next expiry and the
	// oldest expired one, the rows expiring soon (each only when asked).
	c := []string{"count(*)", "count(*) - " + expired, size, "0", "0", "NULL", "NULL", "0", "NULL", "0", "NULL", "0", "0", "NULL"}
	if q.details {
		c[3] = size + " FILTER (WHERE " + dead + ")"
		c[5] = noBlob("min(expires_at) FILTER (WHERE expires_at > " + pNow + ")")
		c[6] = noBlob("min(expires_at) FILTER (WHERE " + dead + ")")
	}
	// Every parameter bound must appear (libsql-client-go refuses a
	// statement that leaves one unused): an unasked count names its bound
	// in a constant.
	c[4] = "0 * " + pSoon
	if q.soon > q.now {
		c[4] = "count(*) FILTER (WHERE expires_at > " + pNow + " AND expires_at <= " + pSoon + ")"
	}
	if h := q.hist; h.Buckets > 0 {
		// The slices as one string, a letter per row expiring in the span
		// ('A' the first slice): one comparison per row instead of one per
		// slice; parseFigures counts the letters.
		span := fmt.Sprintf("expires_at > %s AND expires_at <= ?%d", pNow, pSlices) // sql binds the span's end only
		// Slice i holds (now + i·span/n, now + (i+1)·span/n]: i is
		// ⌊(d·n - 1) / span⌋ for d ms after now, a REAL expiry's ceiling.
		d := "(CAST(expires_at AS INTEGER) + (expires_at > CAST(expires_at AS INTEGER)) - " + pNow + ")"
		c = append(c, fmt.Sprintf("coalesce(group_concat(char(65 + (%s * %d - 1) / %d), '') FILTER (WHERE %s), '')",
			d, h.Buckets, h.Span, span))
	}
	figures := "json_array(" + strings.Join(c, ", ") + ")"
	if second {
		figures = "json_array(json_array(), " + figures + ")"
	} else {
		figures = "json_array(" + figures + ")"
	}
	return "(SELECT " + figures + " FROM kv WHERE " + where + ")"
}

// sql renders the statement and its parameters. Its rows are (kind, hex
// key, figures): kind 0 a range (the key is its first) with the figures
// of its decodable rows and of the others, 2 the rows whose k is NULL
// (all in the second figures), and 4 the window's end (the key, NULL when
// the range is done) with kv_meta's seq in the figures' place.
func (q censusQuery) sql() (string, []any) {
	var hi any
	if q.hi != nil {
		hi = q.hi
	}
	lo := q.lo
	if lo == nil {
		lo = []byte{} // a nil []byte would bind as NULL, and k >= NULL matches nothing
	}
	args := []any{q.now, q.soon, lo, hi, q.window}
	for i := range q.hist.Buckets {
		h := q.hist
		args = append(args, q.now+h.Span*int64(i)/int64(h.Buckets), q.now+h.Span*int64(i+1)/int64(h.Buckets))
	}
	if !q.check && q.hist.Buckets > 0 {
		args = append(args[:pSlices-1], q.now+q.hist.Span) // leanSQL's one bound
	}
	upper := "k < " + pHi
	if q.hi == nil {
		upper = "1"
	}
	inRange := "k >= r.s AND k < r.e"
	figures, keyless := leanSQL(q, inRange, false), leanSQL(q, "k IS NULL", true)
	if q.check {
		figures = aggSQL(q.hist, inRange, "("+fastKeySQL("r.l")+" OR "+walkKeySQL()+")")
		keyless = aggSQL(q.hist, "k IS NULL", "0")
	}
	text := "WITH RECURSIVE " +
		// x: the window's end, or the range's (past the greatest key when
		// it is unbounded); more: whether rows follow the window.
		"c(x, more, seq) AS MATERIALIZED (SELECT coalesce(w.k, " + pHi + ", CAST((SELECT max(k) FROM kv) || x'00' AS BLOB)), w.k IS NOT NULL, " +
		"(SELECT seq FROM kv_meta WHERE id = 0) FROM (SELECT (SELECT k FROM kv WHERE k >= " + pLo + " AND " + upper +
		" ORDER BY k LIMIT 1 OFFSET " + pWindow + ") AS k) AS w), " +
		"b(s) AS (SELECT (SELECT min(k) FROM kv WHERE k >= " + pLo + ") UNION ALL " +
		"SELECT (SELECT min(k) FROM kv WHERE k >= " + firstEndSQL("b.s") + ") FROM b, c WHERE b.s < c.x), " +
		"r(s, e, l) AS (SELECT s, coalesce(lead(s) OVER (ORDER BY s), c.x), " + firstLenSQL("s") + " FROM b, c WHERE b.s < c.x) " +
		"SELECT 0, " + keyHex("r.s") + ", " + figures + " FROM r " +
		"UNION ALL SELECT 4, CASE WHEN more THEN " + keyHex("x") + " END, seq FROM c"
	if q.keyless {
		text += " UNION ALL SELECT 2, NULL, " + keyless
	}
	return text, args
}

// censusFigures is one aggregate row read back.
type censusFigures struct {
	c                          PrefixStats
	bad, odd, nullValues       int64
	maxVer                     int64
	firstBad, firstOdd, minKey []byte
}

// parseFigures reads aggSQL's JSON array.
func parseFigures(text string, buckets int) (censusFigures, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var a []any
	if err := dec.Decode(&a); err != nil || len(a) != 14+buckets && (buckets == 0 || len(a) != 15) {
		return censusFigures{}, fmt.Errorf("census: unexpected figures %q (%d values): %w", text, len(a), err)
	}
	f := censusFigures{}
	ints := []*int64{&f.c.Rows, &f.c.Live, &f.c.Bytes, &f.c.ExpiredBytes, &f.c.Soon, nil, nil, &f.bad, nil, &f.odd, nil, &f.maxVer, &f.nullValues}
	for i, p := range ints {
		if p != nil {
			n, _ := a[i].(json.Number)
			*p, _ = n.Int64()
		}
	}
	f.c.Expired = f.c.Rows - f.c.Live
	f.c.NextExpiry, f.c.OldestExpired = jsonExpiry(a[5]), jsonExpiry(a[6])
	f.firstBad, f.firstOdd, f.minKey = jsonHex(a[8]), jsonHex(a[10]), jsonHex(a[13])
	if buckets > 0 {
		f.c.Expiring = make([]int64, buckets)
		if letters, ok := a[14].(string); ok && len(a) == 15 { // leanSQL's form
			for _, l := range []byte(letters) {
				if i := int(l) - 'A'; i >= 0 && i < buckets {
					f.c.Expiring[i]++
				}
			}
			return f, nil
		}
		for i := range f.c.Expiring {
			n, _ := a[14+i].(json.Number)
			f.c.Expiring[i], _ = n.Int64()
		}
	}
	return f, nil
}

// jsonExpiry reads an expiry the way expiryCol reads the column: a
// fractional REAL counts as its ceiling, TEXT as no expiry.
func jsonExpiry(v any) *int64 {
	var c expiryCol
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			c.Scan(n)
		} else if f, err := x.Float64(); err == nil {
			c.Scan(f)
		}
	case string:
		c.Scan(x)
	}
	return c.at
}

// jsonHex reads keyHex's form; nil for anything else.
func jsonHex(v any) []byte {
	s, ok := v.(string)
	if !ok || !strings.HasPrefix(s, "x") {
		return nil
	}
	b, err := hex.DecodeString(s[1:])
	if err != nil {
		return nil
	}
	return b
}

// censusAcc gathers the windows' figures.
type censusAcc struct {
	st          Stats
	groups      map[string]*PrefixStats
	undecodable *PrefixStats
}

func newCensusAcc() *censusAcc { return &censusAcc{groups: map[string]*PrefixStats{}} }

// censusStep runs one statement from q.lo and adds its figures to acc; it
// returns where the next window starts (nil when the range is done).
func (s *Store) censusStep(ctx context.Context, q censusQuery, acc *censusAcc) ([]byte, error) {
	text, args := q.sql()
	rows, err := s.query(ctx, text, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var next []byte
	n := 0
	for rows.Next() {
		var kind int
		var key, figures sql.NullString
		if err := rows.Scan(&kind, &key, &figures); err != nil {
			return nil, s.classify(err)
		}
		n++
		if kind == 4 {
			if key.Valid {
				next = jsonHex(key.String)
			}
			acc.setSeq(figures)
			continue
		}
		var pair []json.RawMessage // one array without the checks
		if err := json.Unmarshal([]byte(figures.String), &pair); err != nil || len(pair) == 0 || len(pair) > 2 {
			return nil, fmt.Errorf("census: unexpected figures %q: %w", figures.String, err)
		}
		for i, text := range pair {
			if string(text) == "[]" {
				continue
			}
			f, err := parseFigures(string(text), q.hist.Buckets)
			if err != nil {
				return nil, err
			}
			// kind 0's second array is the range's undecodable rows;
			// every row of kind 2 (NULL keys) is in its second.
			acc.add(kind+i, jsonHex(key.String), f)
		}
	}
	s.rowsRead.Add(int64(n))
	if err := rows.Err(); err != nil {
		return nil, s.classify(err)
	}
	return next, nil
}

// setSeq keeps kv_meta's seq as the last statement read it.
func (a *censusAcc) setSeq(seq sql.NullString) {
	a.st.SeqAfter = nil
	var n int64
	if _, err := fmt.Sscan(seq.String, &n); seq.Valid && err == nil {
		a.st.SeqAfter = &n
	}
}

// add merges one set of figures: kind 0 a range's decodable rows (first
// is the range's first key), 1 its undecodable rows, 3 the rows whose k
// is NULL (2, the NULL keys that decode, is always empty).
func (a *censusAcc) add(kind int, first []byte, f censusFigures) {
	if f.c.Rows == 0 {
		return
	}
	st := &a.st
	st.InvalidValues += f.bad
	st.Malformed += f.odd
	st.NullValues += f.nullValues
	st.MaxVer = max(st.MaxVer, f.maxVer)
	if kind == 3 {
		st.NullKeys += f.c.Rows
		a.undecodableGroup().add(f.c)
		return
	}
	st.FirstInvalid = firstKey(st.FirstInvalid, f.firstBad)
	st.FirstMalformed = firstKey(st.FirstMalformed, f.firstOdd)
	if kind == 1 {
		st.FirstUndecodable = firstKey(st.FirstUndecodable, f.minKey)
		a.undecodableGroup().add(f.c)
		return
	}
	if f.minKey == nil {
		f.minKey = first // leanSQL's: the range's first key is its least
	}
	a.group(first, f.minKey).add(f.c)
}

// group is the prefix group of a range whose first key is first: its
// first part as codec decodes it (the SQL checks a part's structure, Go
// its content too: a string of invalid UTF-8 makes the range's rows
// undecodable).
func (a *censusAcc) group(first, minKey []byte) *PrefixStats {
	var part codec.Part
	n := 0
	if len(first) > 0 {
		var err error
		if part, n, err = codec.DecodePart(first); err != nil {
			a.st.FirstUndecodable = firstKey(a.st.FirstUndecodable, minKey)
			return a.undecodableGroup()
		}
	}
	raw := first[:n:n]
	if g := a.groups[string(raw)]; g != nil {
		return g
	}
	g := &PrefixStats{Part: part, Raw: append([]byte{}, raw...)}
	a.groups[string(raw)] = g
	return g
}

func (a *censusAcc) undecodableGroup() *PrefixStats {
	if a.undecodable == nil {
		a.undecodable = &PrefixStats{Undecodable: true}
	}
	return a.undecodable
}

// finish orders the groups by key, the undecodable rows last, and totals
// them.
func (a *censusAcc) finish() Stats {
	st := a.st
	keys := make([]string, 0, len(a.groups))
	for k := range a.groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		st.ByPrefix = append(st.ByPrefix, *a.groups[k])
	}
	if a.undecodable != nil {
		st.ByPrefix = append(st.ByPrefix, *a.undecodable)
		st.Undecodable = a.undecodable.Rows
	}
	for _, p := range st.ByPrefix {
		st.Rows += p.Rows
		st.Live += p.Live
		st.Expired += p.Expired
		if p.OldestExpired != nil && (st.OldestExpired == nil || *p.OldestExpired < *st.OldestExpired) {
			st.OldestExpired = p.OldestExpired
		}
	}
	return st
}
