//go:build !race

package store_test

// raceOn: see race_on_test.go.
const raceOn = false
