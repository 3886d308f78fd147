package store

import "time"

// knobs are the limits and hooks that tests change on one store (through
// the export_test files) to reach, on small data, the paths of large data;
// the zero value of each field means production's default.
type knobs struct {
	// censusWindow and changesWindow replace the rows a census statement
	// and a change scan's window examine (tests of window boundaries);
	// censusRanges the prefix ranges a census statement aggregates.
	censusWindow, changesWindow, censusRanges int
	// findFileRows replaces the keys of a find page's window on a file.
	findFileRows int
	// keylessPage replaces the NULL-key rows one dump statement reads.
	keylessPage int
	// remotePageRows and remotePageBytes replace the size of a remote
	// page (remotePageRows, remotePageBytes).
	remotePageRows  int
	remotePageBytes int64
	// insertChunk, maxStmtArgs and checkChunk replace the limits of a
	// commit's statements (write.go, bulk.go).
	insertChunk, maxStmtArgs, checkChunk int
	// expiredWindow and sortedBytes replace the rows an expired scan's
	// window examines and maxSortedBytes (expired.go).
	expiredWindow, sortedBytes int
	// sweepStepHook runs between a sweep step's read and its delete.
	sweepStepHook func()
	// deleteSynced is told, after each of a sweep's delete commits,
	// whether it synced (execDeletes).
	deleteSynced func(synced bool)
	// lockFreeOff reads with locks as before lockfree.go (the paced walk
	// that remains for a file that keeps being written).
	lockFreeOff bool
	// lockFreeHook runs inside each lock-free try, between the two checks
	// that open it (lockfree.go's step 1), so that a test can write there.
	lockFreeHook func()
	// lockFreePatience replaces how long a read keeps trying without
	// locks before it takes them (lockFreePatience); negative: not at
	// all past lockFreeTries.
	lockFreePatience time.Duration
	// oneLane reads a whole-store listing as one reader, on a machine
	// of any cores (expired_lanes.go).
	oneLane bool
	// windowRows replaces the full window of the windowed reads a
	// rollback-journal file gets apart from the census (a filtered
	// listing's, a level's count, children's counts).
	windowRows int
}

// or is n when it is positive, else def.
func or[T int | int64](n, def T) T {
	if n > 0 {
		return n
	}
	return def
}

// remotePage is the rows and bytes of one remote page.
func (s *Store) remotePage() (rows int, bytes int64) {
	return or(s.knobs.remotePageRows, remotePageRows), or(s.knobs.remotePageBytes, remotePageBytes)
}

// scanPage is the rows and estimated bytes of one page of a remote scan
// (scanremote.go); the knobs of remotePage set them too.
func (s *Store) scanPage() (rows int, bytes int64) {
	return or(s.knobs.remotePageRows, remotePageRows), or(s.knobs.remotePageBytes, scanPageBytes)
}

// commitLimits are the limits of a commit's statements.
func (s *Store) commitLimits() commitLimits {
	return commitLimits{args: or(s.knobs.maxStmtArgs, maxStmtArgs), chunk: or(s.knobs.checkChunk, checkChunk)}
}
