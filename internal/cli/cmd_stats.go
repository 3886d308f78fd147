package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"kvdeck/codec"
	"kvdeck/store"
)

// StatsCmd summarises the store.
type StatsCmd struct {
	Check bool `help:"Also check every row as doctor does: each key's whole structure, each value's JSON (several times slower: every value is parsed)."`
}

// statsJSON is the result line of stats.
type statsJSON struct {
	Seq           int64            `json:"seq"`
	Rows          int64            `json:"rows"`
	Live          int64            `json:"live"`
	Expired       int64            `json:"expired"`
	Undecodable   int64            `json:"undecodable"`
	InvalidValues *int64           `json:"invalidValues"`
	Checked       bool             `json:"checked"`
	JournalMode   *string          `json:"journalMode"`
	ByPrefix      []prefixStatJSON `json:"byPrefix"`
}

// prefixStatJSON counts the rows under one first key part; prefix is that
// part as a one-part tagged key ([] for the empty key, null for rows whose
// key does not decode).
type prefixStatJSON struct {
	Prefix      *codec.Key `json:"prefix"`
	Undecodable bool       `json:"undecodable,omitempty"`
	Rows        int64      `json:"rows"`
	Live        int64      `json:"live"`
	Expired     int64      `json:"expired"`
	Bytes       int64      `json:"bytes"`
}

// Run aggregates every row on the server (store.Census) at the virtual
// now; with --check it checks every row too.
func (c *StatsCmd) Run(app *App) error {
	s, err := app.Open(app.Context(), Opening{})
	if err != nil {
		return err
	}
	st, err := s.StatsWith(app.Context(), store.CensusOptions{Now: app.Now(), Check: c.Check})
	if err != nil {
		return err
	}
	out := statsJSON{Seq: st.Seq, Rows: st.Rows, Live: st.Live, Expired: st.Expired, Undecodable: st.Undecodable,
		Checked: c.Check, ByPrefix: make([]prefixStatJSON, 0, len(st.ByPrefix))}
	if c.Check {
		out.InvalidValues = &st.InvalidValues
	}
	if st.JournalMode != "" {
		out.JournalMode = &st.JournalMode
	}
	for _, p := range st.ByPrefix {
		row := prefixStatJSON{Undecodable: p.Undecodable, Rows: p.Rows, Live: p.Live, Expired: p.Expired, Bytes: p.Bytes}
		if !p.Undecodable {
			k := codec.Key{}
			if p.Part.Kind() != 0 {
				k = codec.Key{p.Part}
			}
			row.Prefix = &k
		}
		out.ByPrefix = append(out.ByPrefix, row)
	}
	app.Out.Result(out, statsText(out))
	return nil
}

// statsText is the summary for people: totals, then a table per prefix.
func statsText(st statsJSON) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	journal := "(remote)"
	if st.JournalMode != nil {
		journal = *st.JournalMode
	}
	invalid := "not checked (stats --check)"
	if st.InvalidValues != nil {
		invalid = fmt.Sprint(*st.InvalidValues)
	}
	fmt.Fprintf(tw, "seq\t%d\nrows\t%d\nlive\t%d\nexpired\t%d\nundecodable\t%d\ninvalid values\t%s\njournal mode\t%s\n",
		st.Seq, st.Rows, st.Live, st.Expired, st.Undecodable, invalid, journal)
	_ = tw.Flush()
	if len(st.ByPrefix) == 0 {
		return strings.TrimRight(b.String(), "\n")
	}
	b.WriteString("\n")
	rows := [][]string{{"PREFIX", "ROWS", "LIVE", "EXPIRED", "BYTES"}}
	for _, p := range st.ByPrefix {
		name := "(undecodable)"
		switch {
		case p.Prefix != nil && len(*p.Prefix) == 0:
			name = "[]"
		case p.Prefix != nil:
			name = (*p.Prefix)[0].String()
		}
		rows = append(rows, []string{name, fmt.Sprint(p.Rows), fmt.Sprint(p.Live), fmt.Sprint(p.Expired), fmt.Sprint(p.Bytes)})
	}
	writeTable(&b, rows)
	return strings.TrimRight(b.String(), "\n")
}

// writeTable writes rows as columns two spaces apart: the first column
// left-aligned, the others (numbers) right-aligned.
func writeTable(b *strings.Builder, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, cell := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	for _, r := range rows {
		for i, cell := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			switch i {
			case 0:
				b.WriteString(cell + pad)
			default:
				b.WriteString("  " + pad + cell)
			}
		}
		b.WriteString("\n")
	}
}
