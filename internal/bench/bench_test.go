package bench_test

import (
	"context"
	"testing"

	"kvdeck/internal/bench"
)

// TestLongestSweepTxIsEachOps: the longest delete transaction is taken
// per op, so a later op does not report an earlier one's.
func TestLongestSweepTxIsEachOps(t *testing.T) {
	ctx := context.Background()
	env, err := bench.NewEnv(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	op := env.SweepOp(300)
	if err := op.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if err := op.Engine(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if d := env.TakeLongestSweepTx(); d <= 0 {
		t.Fatalf("the sweep's longest transaction: %v", d)
	}
	if d := env.TakeLongestSweepTx(); d != 0 {
		t.Fatalf("taken again without a sweep: %v, want 0", d)
	}
}
