package store

// SetSweepStepHook makes every sweep step call fn between its read and its
// delete (nil: none), so that a test can write in between.
func SetSweepStepHook(fn func()) { sweepStepHook = fn }
