//go:build race

package store_test

// raceOn: the race detector slows SQLite (modernc) about tenfold, so that
// timing-bound tests scale their expectations.
const raceOn = true
