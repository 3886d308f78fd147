// Package race is the CAS race engine behind `kvdeck race` and the TUI's
// Race tab: clients increment a JSON counter {"n": <integer>} with read /
// check / set, and the engine counts what optimistic concurrency costs
// (conflicts, retries) and what dropping the check loses (lost updates).
//
// Two modes share the counter format:
//
//   - Live mode (Start, Run): N workers, each with its own store (its own
//     connection pool, as separate clients would have), race M increments
//     each; a UI polls Race.Snapshot while they run.
//   - Step mode (Stepper): a deterministic theater of named clients A, B,
//     ... that read, stage and commit one step at a time; a failed commit is
//     explained (expected vs actual stamp, who wrote in between) and the
//     recorded interleaving can be replayed.
//
// The package knows nothing of terminals; every blocking method takes a
// context so a bubbletea command can run it with a deadline.
package race

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"kvdeck/codec"
	"kvdeck/store"
)

// ErrNotCounter: the key holds something other than a counter
// {"n": <integer>}. The race refuses it before writing anything.
var ErrNotCounter = errors.New("not a race counter")

// maxSafe is JavaScript's Number.MAX_SAFE_INTEGER: other clients of the
// store are JavaScript services, and beyond it n+1 is not exact for them.
const maxSafe = 1<<53 - 1

// Counter is what one read of the counter key saw.
type Counter struct {
	// Found is false when the key is absent (or expired): the counter is 0.
	Found bool
	// N is the counter's value.
	N int64
	// Stamp is the versionstamp of the row read, "" when absent: the check
	// a CAS increment commits with.
	Stamp string
}

// ReadCounter reads the counter at key. An absent key is a counter at 0;
// a value that is not an object with an integer "n" is ErrNotCounter.
func ReadCounter(ctx context.Context, s *store.Store, key codec.Key) (Counter, error) {
	e, found, err := s.Get(ctx, key)
	if err != nil || !found {
		return Counter{}, err
	}
	n, err := ParseCounter(key, e.Value)
	if err != nil {
		return Counter{}, err
	}
	return Counter{Found: true, N: n, Stamp: e.Versionstamp()}, nil
}

// ParseCounter reads n from a stored counter value. Other fields are
// tolerated (another client may keep more in the object), but increments
// write exactly {"n": N}. n must be an integer a JavaScript client can
// increment exactly (|n| < 2^53); 5.0 counts as 5. The error names the key
// and what was found.
func ParseCounter(key codec.Key, value []byte) (int64, error) {
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(value))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil || obj == nil || dec.More() {
		return 0, notCounter(key, value, "")
	}
	v, ok := obj["n"]
	if !ok {
		return 0, notCounter(key, value, `it has no field "n"`)
	}
	num, ok := v.(json.Number)
	if !ok {
		shown, _ := json.Marshal(v)
		return 0, notCounter(key, value, fmt.Sprintf("n is %s, not a number", clip(shown)))
	}
	n, err := strconv.ParseInt(num.String(), 10, 64)
	if err != nil {
		// 5.0 and 1e3 are integers too (JSON.stringify would write 5, 1000).
		f, ferr := num.Float64()
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > maxSafe {
			return 0, notCounter(key, value, fmt.Sprintf("n is %s, not an integer", num))
		}
		n = int64(f)
	}
	if n < -maxSafe || n >= maxSafe {
		return 0, notCounter(key, value, fmt.Sprintf("n is %s, beyond the integers a JavaScript client increments exactly (|n| < 2^53)", num))
	}
	return n, nil
}

// counterValue is the JSON an increment writes.
func counterValue(n int64) []byte { return append(strconv.AppendInt([]byte(`{"n":`), n, 10), '}') }

func notCounter(key codec.Key, value []byte, why string) error {
	msg := fmt.Sprintf("%s holds %s; a race counter is a JSON object {\"n\": <integer>} (or absent, meaning 0)", codec.Format(key), clip(value))
	if why != "" {
		msg += ": " + why
	}
	return fmt.Errorf("%w: %s", ErrNotCounter, msg)
}

// clip shortens a value for an error message, keeping it valid UTF-8.
func clip(b []byte) string {
	const max = 60
	if len(b) <= max {
		return string(b)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "..."
}
