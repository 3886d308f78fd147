package store_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"kvdeck/internal/bench"
)

// BenchmarkSweepRatio measures the engine's sweep beside a plain DELETE of
// the same expired rows (bench.Env's sweep op: 100 000 rows per call, the
// rows seeded again, untimed, before every call), the two sides taking
// turns in one run; it reports the engine's speed as a share of the plain
// DELETE's (ratio, the goal is at least 0.5), the same by this process's
// CPU time (cpu-ratio: steadier on a machine other work keeps busy) and
// the longest delete transaction of the engine's sweeps (longest-tx-ms):
//
//	go test -run '^$' -bench SweepRatio -benchtime 3x ./store/
func BenchmarkSweepRatio(b *testing.B) {
	ctx := context.Background()
	env, err := bench.NewEnv(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	op := env.SweepOp(100_000)
	var engine, raw, engineCPU, rawCPU time.Duration
	for i := 0; i < b.N; i++ {
		for _, side := range []struct {
			run    func(context.Context, int) error
			d, cpu *time.Duration
		}{{op.Raw, &raw, &rawCPU}, {op.Engine, &engine, &engineCPU}} {
			b.StopTimer()
			if err := op.Reset(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			t0, c0 := time.Now(), cpuTime()
			if err := side.run(ctx, i); err != nil {
				b.Fatal(err)
			}
			*side.d += time.Since(t0)
			*side.cpu += cpuTime() - c0
		}
	}
	b.ReportMetric(raw.Seconds()/engine.Seconds(), "ratio")
	b.ReportMetric(rawCPU.Seconds()/engineCPU.Seconds(), "cpu-ratio")
	b.ReportMetric(float64(env.LongestSweepTx().Microseconds())/1000, "longest-tx-ms")
}

// cpuTime is this process's CPU time, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
