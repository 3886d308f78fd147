package store

import "strings"

func ZZCensusSQL(now int64, window int, check, noFigures bool) (string, []any) {
	q := censusQuery{lo: []byte{}, hi: []byte{0xFF, 0xFF}, window: window, now: now, soon: now, check: check}
	t, a := q.sql()
	if noFigures {
		i := strings.Index(t, "SELECT 0, ")
		j := strings.Index(t, " FROM r UNION ALL")
		t = t[:i] + "SELECT 0, " + keyHex("r.s") + ", coalesce(?1, ?2)" + t[j:]
	}
	return t, a
}
