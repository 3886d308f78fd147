package store_test

import (
	"context"
	"testing"

	"kvdeck/internal/bench"
)

// BenchmarkEngine runs every measured operation (set, get, check+set,
// list, sweep) beside its raw-SQL baseline on the same driver, settings
// and file, so the ratio is read off one run:
//
//	go test -run '^$' -bench Engine -benchtime 2000x ./store/
//
// (list and sweep touch 100 000 rows per call; use -benchtime 5x for them).
func BenchmarkEngine(b *testing.B) {
	ctx := context.Background()
	env, err := bench.NewEnv(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	for _, op := range env.Ops(100_000, 100_000) {
		for _, side := range []struct {
			name string
			run  func(context.Context, int) error
		}{{"floor", op.Floor}, {"raw", op.Raw}, {"engine", op.Engine}} {
			if side.run == nil {
				continue
			}
			b.Run(op.Name+"/"+side.name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if op.Reset != nil {
						b.StopTimer()
						if err := op.Reset(ctx); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
					}
					if err := side.run(ctx, i); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
