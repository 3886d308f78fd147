package store

// SetSweepStepHook makes every sweep step of s call fn between its read
// and its delete (nil: none), so that a test can write in between.
func SetSweepStepHook(s *Store, fn func()) { s.knobs.sweepStepHook = fn }

// SetCommitLimits makes a commit statement of s bind at most args values,
// a check expression test at most chunk keys and a SetMany INSERT carry at
// most rows rows, so that small commits take every path of big ones; it
// returns a function that restores the limits.
func SetCommitLimits(s *Store, args, chunk, rows int) (restore func()) {
	k := &s.knobs
	a, c, r := k.maxStmtArgs, k.checkChunk, k.insertChunk
	k.maxStmtArgs, k.checkChunk, k.insertChunk = args, chunk, rows
	return func() { k.maxStmtArgs, k.checkChunk, k.insertChunk = a, c, r }
}
