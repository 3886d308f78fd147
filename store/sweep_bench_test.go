package store_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"kvdeck/internal/bench"
	"kvdeck/internal/journal"
)

// BenchmarkSweepRatio measures the engine's sweep beside a plain DELETE of
// the same expired rows (bench.Env's sweep op: 100 000 rows per call, the
// rows seeded again, untimed, before every call), and the same sweep with
// the write journal on (as `kvdeck sweep` runs: the expired rows are read
// whole and synced as before-images, a batch at a time, before the
// deletes), the sides taking turns in one run. It
// reports each engine side's speed as a share of the plain DELETE's
// (ratio, the goal is at least 0.5; journal-ratio), the same by this
// process's CPU time (cpu-ratio, journal-cpu-ratio: steadier on a machine
// other work keeps busy) and the longest delete transaction of the
// engine's sweeps (longest-tx-ms). Each ratio is of the sides' best
// calls (the fastest of b.N each): on a machine other work keeps busy,
// the call least slowed by it:
//
//	go test -run '^$' -bench SweepRatio -benchtime 3x ./store/
func BenchmarkSweepRatio(b *testing.B) {
	ctx := context.Background()
	env, err := bench.NewEnv(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	if env.SweepRecorder, err = journal.Open(env.Store.Info().Display, journal.Options{Dir: b.TempDir()}); err != nil {
		b.Fatal(err)
	}
	op, journaled := env.SweepOp(100_000), env.JournaledSweepOp(100_000)
	var d, cpu [3]time.Duration // best call of raw, engine, engine with the journal
	for i := 0; i < b.N; i++ {
		for j, run := range []func(context.Context, int) error{op.Raw, op.Engine, journaled.Engine} {
			b.StopTimer()
			if err := op.Reset(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			t0, c0 := time.Now(), cpuTime()
			if err := run(ctx, i); err != nil {
				b.Fatal(err)
			}
			wall, used := time.Since(t0), cpuTime()-c0
			if i == 0 || wall < d[j] {
				d[j] = wall
			}
			if i == 0 || used < cpu[j] {
				cpu[j] = used
			}
		}
	}
	b.ReportMetric(d[0].Seconds()/d[1].Seconds(), "ratio")
	b.ReportMetric(cpu[0].Seconds()/cpu[1].Seconds(), "cpu-ratio")
	b.ReportMetric(d[0].Seconds()/d[2].Seconds(), "journal-ratio")
	b.ReportMetric(cpu[0].Seconds()/cpu[2].Seconds(), "journal-cpu-ratio")
	b.ReportMetric(float64(env.TakeLongestSweepTx().Microseconds())/1000, "longest-tx-ms")
}

// cpuTime is this process's CPU time, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
