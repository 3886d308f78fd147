package cli

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
)

// watchOddShown is how many rows with a malformed stamp a watch names.
const watchOddShown = 20

// oddStamps says on out, once at the start, which rows under the watched
// prefixes have a ver that is not a whole number (another writer's): the
// change feed has no place for them, so a set of such a row is never
// printed. One line per row (at most watchOddShown; doctor lists all),
// escaped, flagged "malformed stamp". A failure to ask is said, not fatal.
func (w *watcher) oddStamps(ctx context.Context, out io.Writer) {
	rows, total, err := w.s.OddStamps(ctx, w.prefixes, watchOddShown)
	if err != nil {
		fmt.Fprintf(out, "kvdeck: watch: could not look for rows with a malformed stamp: %s\n", usertext.Sanitize(err.Error()))
		return
	}
	if w.feed.Exact != nil {
		total = 0
		kept := rows[:0]
		for _, e := range rows {
			if w.feed.Exact[string(e.Raw)] {
				kept = append(kept, e)
				total++
			}
		}
		rows = kept
	}
	if total == 0 {
		return
	}
	fmt.Fprintf(out, "kvdeck: watch: %s with a malformed stamp (ver not a whole number) never reach the change feed: their sets are not printed; `kvdeck doctor` counts them\n", plural(total, "row"))
	for _, e := range rows {
		key := "0x" + hex.EncodeToString(e.Raw)
		if e.KeyErr == nil {
			key = codec.Format(e.Key)
		}
		fmt.Fprintf(out, "kvdeck: watch:   %s  malformed stamp: %s\n", usertext.Sanitize(key), usertext.Sanitize(e.Malformed))
	}
	if n := total - int64(len(rows)); n > 0 {
		fmt.Fprintf(out, "kvdeck: watch:   and %s more\n", plural(n, "row"))
	}
}
