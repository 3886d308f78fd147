// Package bench measures the engine against raw SQL on the same driver and
// settings, so that every figure is a ratio read off one run. The Go
// benchmarks in store/ and the `kvdeck bench` command both use it.
package bench

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tursodatabase/libsql-client-go/libsql"

	"kvdeck/codec"
	"kvdeck/store"
)

// Namespace is the first key part of every row a benchmark writes.
const Namespace = "kvdeck_bench"

// Env is a store plus a raw database/sql handle on the same database through
// the same driver: for an embedded file the same DSN (WAL, as kvdeck creates
// it), for a server the same libSQL client.
type Env struct {
	Store *store.Store
	Raw   *sql.DB
	// Now is the fixed clock of the run.
	Now    int64
	run    string
	remote bool
	// upsert and get are the raw side's prepared statements on a file: the
	// floor is the best the driver can do, so the raw side prepares too.
	upsert, get *sql.Stmt
	// longestTx is the longest delete transaction of the engine's sweeps.
	longestTx time.Duration
	// SweepRecorder, when set, adds a sweep journaled as `kvdeck sweep`
	// journals (the CLI attaches the write journal) to Ops: each delete
	// batch hands it its rows, read before, as before-images first.
	SweepRecorder store.Recorder
}

// TakeLongestSweepTx is the longest delete transaction of the engine's
// sweeps since the last call (an op's, when called after each).
func (e *Env) TakeLongestSweepTx() time.Duration {
	d := e.longestTx
	e.longestTx = 0
	return d
}

// NewEnv creates a fresh embedded store at dir/bench.db.
func NewEnv(ctx context.Context, dir string) (*Env, error) {
	path := filepath.Join(dir, "bench.db")
	e := &Env{Now: time.Now().UnixMilli(), run: "local"}
	s, err := store.Open(ctx, path, store.Options{Clock: e.clock, Create: true})
	if err != nil {
		return nil, err
	}
	e.Store = s
	target, err := store.ParseTarget(path)
	if err == nil {
		e.Raw, err = sql.Open("sqlite", target.SQLiteDSN(false, store.DefaultBusyTimeout))
	}
	if err == nil {
		e.upsert, err = e.Raw.PrepareContext(ctx, upsertSQL)
	}
	if err == nil {
		e.get, err = e.Raw.PrepareContext(ctx, getSQL)
	}
	if err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// NewRemoteEnv measures against a server. Every row it writes lives under
// [Namespace, <run id>]; Cleanup removes them.
func NewRemoteEnv(ctx context.Context, url, token string) (*Env, error) {
	id := make([]byte, 6)
	if _, err := rand.Read(id); err != nil {
		return nil, err
	}
	e := &Env{Now: time.Now().UnixMilli(), run: hex.EncodeToString(id), remote: true}
	s, err := store.Open(ctx, url, store.Options{Clock: e.clock, AuthToken: token})
	if err != nil {
		return nil, err
	}
	e.Store = s
	target, _ := store.ParseTarget(url)
	var opts []libsql.Option
	if token != "" {
		opts = append(opts, libsql.WithAuthToken(token))
	}
	connector, err := libsql.NewConnector(target.URL, opts...)
	if err != nil {
		s.Close()
		return nil, err
	}
	e.Raw = sql.OpenDB(connector)
	return e, nil
}

func (e *Env) clock() int64 { return e.Now }

// Run names this run: its rows live under [Namespace, Run()].
func (e *Env) Run() string { return e.run }

// Close closes both handles.
func (e *Env) Close() {
	for _, st := range []*sql.Stmt{e.upsert, e.get} {
		if st != nil {
			st.Close()
		}
	}
	if e.Raw != nil {
		e.Raw.Close()
	}
	if e.Store != nil {
		e.Store.Close()
	}
}

// Cleanup deletes every row the run wrote.
func (e *Env) Cleanup(ctx context.Context) error {
	p := codec.MustEncode(codec.Key{codec.String(Namespace), codec.String(e.run)})
	_, err := e.Raw.ExecContext(ctx, "DELETE FROM kv WHERE k >= ? AND k < ?", p, codec.PrefixEnd(p))
	return err
}

// Key returns key number i of the group op: [Namespace, run, op, i].
func (e *Env) Key(op string, i int) codec.Key {
	return codec.Key{codec.String(Namespace), codec.String(e.run), codec.String(op), codec.Number(float64(i))}
}

func (e *Env) prefix(op string) codec.Key {
	return codec.Key{codec.String(Namespace), codec.String(e.run), codec.String(op)}
}

const (
	upsertSQL = "INSERT INTO kv (k, v, ver, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v, ver = excluded.ver, expires_at = excluded.expires_at"
	getSQL    = "SELECT v, ver, expires_at FROM kv WHERE k = ?"
)

// Seed writes n rows of group op through the engine, 500 sets per commit;
// expired rows get expireIn 0 (dead at the run's clock).
func (e *Env) Seed(ctx context.Context, op string, n int, expired bool) error {
	zero := time.Duration(0)
	for start := 0; start < n; start += 500 {
		var muts []store.Mutation
		for i := start; i < n && i < start+500; i++ {
			m := store.Mutation{Type: store.MutationSet, Key: e.Key(op, i), Value: []byte(`{"n":` + strconv.Itoa(i) + `}`)}
			if expired {
				m.ExpireIn = &zero
			}
			muts = append(muts, m)
		}
		if _, err := e.Store.Commit(ctx, nil, muts); err != nil {
			return err
		}
	}
	return nil
}

// checkpoint, on a file, moves the WAL's pages into the database and
// empties the WAL, so that each side of an op starts from the same file
// state: how much of a seed's WAL the last checkpoint left behind varies
// from call to call, and a longer WAL makes every read of either side
// look pages up in it.
func (e *Env) checkpoint(ctx context.Context) error {
	if e.remote {
		return nil
	}
	_, err := e.Raw.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}

// rawUpsertTx is one upsert in an explicit write transaction (BEGIN
// IMMEDIATE through the DSN's _txlock; COMMIT): the shape of any commit that
// must read and write atomically. On a server it is the single statement.
func (e *Env) rawUpsertTx(ctx context.Context, k codec.Key, v string) error {
	if e.upsert == nil {
		return e.rawUpsert(ctx, k, v)
	}
	tx, err := e.Raw.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if _, err := tx.StmtContext(ctx, e.upsert).ExecContext(ctx, codec.MustEncode(k), v, 1, nil); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// rawUpsert is the floor of a write: one prepared upsert in autocommit mode
// (an implicit transaction).
func (e *Env) rawUpsert(ctx context.Context, k codec.Key, v string) error {
	var err error
	if e.upsert != nil {
		_, err = e.upsert.ExecContext(ctx, codec.MustEncode(k), v, 1, nil)
	} else {
		_, err = e.Raw.ExecContext(ctx, upsertSQL, codec.MustEncode(k), v, 1, nil)
	}
	return err
}

func (e *Env) rawGet(ctx context.Context, k codec.Key) error {
	var v string
	var ver int64
	var exp sql.NullInt64
	var row *sql.Row
	if e.get != nil {
		row = e.get.QueryRowContext(ctx, codec.MustEncode(k))
	} else {
		row = e.Raw.QueryRowContext(ctx, getSQL, codec.MustEncode(k))
	}
	return row.Scan(&v, &ver, &exp)
}

// Op is one measured operation with its raw-SQL baseline.
type Op struct {
	// Name is the operation ("set", "get", ...).
	Name string
	// Baseline says what the raw side does.
	Baseline string
	// Rows is the number of rows one call touches (1, or the range size).
	Rows int
	// Reset, when set, runs untimed before every call of either side.
	Reset func(ctx context.Context) error
	// Engine and Raw perform call number i.
	Engine, Raw func(ctx context.Context, i int) error
	// Floor, when set, is a second, cheaper raw baseline (the autocommit
	// upsert beside the explicit transaction).
	Floor func(ctx context.Context, i int) error
}

// Ops returns the measured operations (set, get, check+set, list,
// sweep): point operations
// cycle over keys keys, list and sweep work on ranges of rows rows.
func (e *Env) Ops(keys, rows int) []Op {
	value := []byte(`{"n":1,"holder":"a1b2c3d4-0001-4e5f-8a9b-0c1d2e3f4a5b"}`)
	write := "BEGIN IMMEDIATE; one upsert; COMMIT (floor: one autocommit upsert)"
	if e.remote {
		write = "one upsert statement (one request)"
	}
	ops := []Op{e.setOp(keys, value, write), e.getOp(keys), e.casOp(keys, value, write), e.listOp(rows), e.SweepOp(rows)}
	if e.SweepRecorder != nil {
		ops = append(ops, e.JournaledSweepOp(rows))
	}
	if !e.remote { // a server's store is the user's: no whole-store census of it here
		ops = append(ops, e.censusOp(rows))
	}
	return ops
}

// censusOp: stats' census of the whole store (a temporary file: what the
// other operations seeded, rows more under 100 prefixes of their own)
// beside one plain full-table aggregate of the rows, their bytes and the
// expired ones (baseline).
func (e *Env) censusOp(rows int) Op {
	return Op{
		Name: "census", Baseline: "one full-table count(*), bytes, expired", Rows: rows,
		Reset: once(func(ctx context.Context) error {
			for i := range 100 {
				if err := e.Seed(ctx, fmt.Sprintf("census%02d", i), max(rows/100, 1), i%7 == 0); err != nil {
					return err
				}
			}
			return nil
		}),
		Engine: func(ctx context.Context, _ int) error {
			_, err := e.Store.Census(ctx, store.CensusOptions{Now: e.Now})
			return err
		},
		Raw: func(ctx context.Context, _ int) error {
			var n, bytes, expired sql.NullInt64
			return e.Raw.QueryRowContext(ctx, "SELECT count(*), sum(length(k) + length(CAST(v AS BLOB))), count(*) FILTER (WHERE expires_at <= ?) FROM kv", e.Now).
				Scan(&n, &bytes, &expired)
		},
	}
}

// setOp: an unconditional set beside one upsert.
func (e *Env) setOp(keys int, value []byte, write string) Op {
	return e.upsertBaselines(Op{
		Name: "set", Baseline: write, Rows: 1,
		Engine: func(ctx context.Context, i int) error {
			_, err := e.Store.Set(ctx, e.Key("set", i%keys), value, nil)
			return err
		},
	}, "set", keys, value)
}

// upsertBaselines gives op the baselines of a write: one upsert of value
// at key i%keys in a write transaction (under "raw"+name) and, its
// floor, the upsert alone (under "floor"+name).
func (e *Env) upsertBaselines(op Op, name string, keys int, value []byte) Op {
	raw, floor := "raw"+name, "floor"+name
	op.Raw = func(ctx context.Context, i int) error {
		return e.rawUpsertTx(ctx, e.Key(raw, i%keys), string(value))
	}
	op.Floor = e.floor(func(ctx context.Context, i int) error {
		return e.rawUpsert(ctx, e.Key(floor, i%keys), string(value))
	})
	return op
}

// getOp: a point read beside a SELECT by primary key.
func (e *Env) getOp(keys int) Op {
	return Op{
		Name: "get", Baseline: "SELECT by primary key", Rows: 1,
		Reset: once(func(ctx context.Context) error { return e.Seed(ctx, "get", keys, false) }),
		Engine: func(ctx context.Context, i int) error {
			_, found, err := e.Store.Get(ctx, e.Key("get", i%keys))
			if err == nil && !found {
				err = fmt.Errorf("get: key %d missing", i%keys)
			}
			return err
		},
		Raw: func(ctx context.Context, i int) error { return e.rawGet(ctx, e.Key("get", i%keys)) },
	}
}

// casOp: a read and a checked set beside one upsert.
func (e *Env) casOp(keys int, value []byte, write string) Op {
	return e.upsertBaselines(Op{
		Name: "check+set", Baseline: write, Rows: 1,
		Engine: func(ctx context.Context, i int) error {
			k := e.Key("cas", i%keys)
			stamp := ""
			if en, found, err := e.Store.Get(ctx, k); err != nil {
				return err
			} else if found {
				stamp = en.Versionstamp()
			}
			res, err := e.Store.Atomic().Check(k, stamp).Set(k, value).Commit(ctx)
			if err == nil && !res.OK {
				err = fmt.Errorf("check+set: unexpected conflict")
			}
			return err
		},
	}, "cas", keys, value)
}

// listOp: a paged scan of a range beside one range SELECT.
func (e *Env) listOp(rows int) Op {
	return Op{
		Name: "list", Baseline: "plain range SELECT", Rows: rows,
		Reset: once(func(ctx context.Context) error { return e.Seed(ctx, "list", rows, false) }),
		Engine: func(ctx context.Context, _ int) error {
			n := 0
			err := e.Store.Scan(ctx, store.ListOptions{Prefix: e.prefix("list")}, func(store.Entry) error { n++; return nil })
			return expectRows(err, n, rows)
		},
		Raw: func(ctx context.Context, _ int) error { return e.rawRange(ctx, "list", rows) },
	}
}

// SweepOp: the engine's sweep beside one DELETE of the same expired rows
// (rows rows, seeded again before every call). The engine's longest
// delete transaction is kept (LongestSweepTx).
func (e *Env) SweepOp(rows int) Op { return e.sweepOp("sweep", rows, nil) }

// JournaledSweepOp is SweepOp with the engine's deletes journaled by
// SweepRecorder, as `kvdeck sweep` runs (the raw side is the same DELETE).
func (e *Env) JournaledSweepOp(rows int) Op { return e.sweepOp("sweep+journal", rows, e.SweepRecorder) }

// sweepOp is a sweep op named name, its engine side journaled by rec when
// rec is not nil.
func (e *Env) sweepOp(name string, rows int, rec store.Recorder) Op {
	return Op{
		Name: name, Baseline: "plain DELETE of expired rows", Rows: rows,
		Reset: func(ctx context.Context) error {
			if err := e.Seed(ctx, "sweep", rows, true); err != nil {
				return err
			}
			return e.checkpoint(ctx)
		},
		Engine: func(ctx context.Context, _ int) error {
			if rec != nil {
				e.Store.SetRecorder(rec)
				defer e.Store.SetRecorder(nil)
			}
			res, err := e.Store.Sweep(ctx, store.SweepOptions{Prefix: e.prefix("sweep")})
			e.longestTx = max(e.longestTx, res.LongestTx)
			return expectRows(err, int(res.Swept), rows)
		},
		Raw: func(ctx context.Context, _ int) error {
			p := codec.MustEncode(e.prefix("sweep"))
			r, err := e.Raw.ExecContext(ctx, "DELETE FROM kv WHERE k >= ? AND k < ? AND expires_at IS NOT NULL AND expires_at <= ?", p, codec.PrefixEnd(p), e.Now)
			if err != nil {
				return err
			}
			n, _ := r.RowsAffected()
			return expectRows(nil, int(n), rows)
		},
	}
}

// floor returns f on an embedded file; on a server the raw side already is
// the single autocommit statement.
func (e *Env) floor(f func(ctx context.Context, i int) error) func(ctx context.Context, i int) error {
	if e.remote {
		return nil
	}
	return f
}

// rawRange reads every row of group op with one plain range SELECT.
func (e *Env) rawRange(ctx context.Context, op string, want int) error {
	p := codec.MustEncode(e.prefix(op))
	rows, err := e.Raw.QueryContext(ctx, "SELECT k, v, ver, expires_at FROM kv WHERE k >= ? AND k < ? ORDER BY k", p, codec.PrefixEnd(p))
	if err != nil {
		return err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var k, v []byte
		var ver int64
		var exp sql.NullInt64
		if err := rows.Scan(&k, &v, &ver, &exp); err != nil {
			return err
		}
		n++
	}
	return expectRows(rows.Err(), n, want)
}

// once wraps a setup step so that it runs on the first call only.
func once(f func(ctx context.Context) error) func(ctx context.Context) error {
	done := false
	return func(ctx context.Context) error {
		if done {
			return nil
		}
		done = true
		return f(ctx)
	}
}

func expectRows(err error, got, want int) error {
	if err == nil && got != want {
		err = fmt.Errorf("touched %d rows, want %d", got, want)
	}
	return err
}

// Figures are one side's measurement.
type Figures struct {
	Calls int
	// Elapsed is the calls' time in all; for an op over many rows (Rows >
	// 1, a few calls each of a whole range), the fastest call's times
	// Calls: the call least slowed by other work on the machine.
	Elapsed time.Duration
	// RoundTrips is the engine's requests per call (store counters); zero
	// for the raw side.
	RoundTrips float64
}

// PerSecond is calls per second.
func (f Figures) PerSecond() float64 {
	if f.Elapsed <= 0 {
		return 0
	}
	return float64(f.Calls) / f.Elapsed.Seconds()
}

// Measure runs op calls times on each side (Reset untimed before every
// call). The sides take turns in up to ten rounds, in a rotating order, so
// that none of them always meets the bigger file or the fuller WAL. An op
// over many rows is measured by each side's fastest call (Figures).
func (e *Env) Measure(ctx context.Context, op Op, calls int) (engine, raw, floor Figures, err error) {
	type side struct {
		run func(ctx context.Context, i int) error
		fig *Figures
	}
	sides := []side{{op.Raw, &raw}, {op.Engine, &engine}}
	if op.Floor != nil {
		sides = append(sides, side{op.Floor, &floor})
	}
	trips := make([]int64, len(sides))
	best := make([]time.Duration, len(sides))
	rounds := min(10, calls)
	for r := 0; r < rounds; r++ {
		lo, hi := r*calls/rounds, (r+1)*calls/rounds
		for j := range sides {
			k := (j + r) % len(sides)
			sd := sides[k]
			for i := lo; i < hi; i++ {
				if op.Reset != nil {
					if err := op.Reset(ctx); err != nil {
						return engine, raw, floor, err
					}
				}
				before := e.Store.Counters().RoundTrips
				start := time.Now()
				if err := sd.run(ctx, i); err != nil {
					return engine, raw, floor, fmt.Errorf("%s: %w", op.Name, err)
				}
				took := time.Since(start)
				sd.fig.Elapsed += took
				sd.fig.Calls++
				if best[k] == 0 || took < best[k] {
					best[k] = took
				}
				trips[k] += e.Store.Counters().RoundTrips - before
			}
		}
	}
	for k, sd := range sides {
		if sd.fig.Calls > 0 {
			sd.fig.RoundTrips = float64(trips[k]) / float64(sd.fig.Calls)
		}
		if op.Rows > 1 {
			sd.fig.Elapsed = best[k] * time.Duration(sd.fig.Calls)
		}
	}
	return engine, raw, floor, nil
}
