package store

// SetSweepStepHook makes every sweep step call fn between its read and its
// delete (nil: none), so that a test can write in between.
func SetSweepStepHook(fn func()) { sweepStepHook = fn }

// SetCommitLimits makes a commit statement bind at most args values, a
// check expression test at most chunk keys and a SetMany INSERT carry at
// most rows rows, so that small commits take every path of big ones; it
// returns a function that restores the limits.
func SetCommitLimits(args, chunk, rows int) (restore func()) {
	a, c, r := maxStmtArgs, checkChunk, insertChunk
	maxStmtArgs, checkChunk, insertChunk = args, chunk, rows
	return func() { maxStmtArgs, checkChunk, insertChunk = a, c, r }
}
