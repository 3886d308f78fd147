// Package bench measures the engine against raw SQL on the same driver and
// settings, so that every figure is a ratio read off one run. The Go
// benchmarks in store/ and the `kvdeck bench` command both use it.
package bench

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"kvdeck/codec"
	"kvdeck/store"
)

// Env is a fresh embedded store (WAL, as kvdeck creates it) plus a raw
// database/sql handle on the same file through the same driver and DSN.
type Env struct {
	Store *store.Store
	Raw   *sql.DB
	Now   int64
	// upsert and get are the raw side's prepared statements: the floor is
	// the best the driver can do, so the raw side prepares too.
	upsert, get *sql.Stmt
}

// NewEnv creates the store at dir/bench.db.
func NewEnv(ctx context.Context, dir string) (*Env, error) {
	path := filepath.Join(dir, "bench.db")
	now := time.Now().UnixMilli()
	s, err := store.Open(ctx, path, store.Options{Clock: func() int64 { return now }})
	if err != nil {
		return nil, err
	}
	target, err := store.ParseTarget(path)
	if err != nil {
		s.Close()
		return nil, err
	}
	raw, err := sql.Open("sqlite", target.SQLiteDSN(false, true, store.DefaultBusyTimeout))
	if err != nil {
		s.Close()
		return nil, err
	}
	e := &Env{Store: s, Raw: raw, Now: now}
	if e.upsert, err = raw.PrepareContext(ctx, upsertSQL); err == nil {
		e.get, err = raw.PrepareContext(ctx, "SELECT v, ver, expires_at FROM kv WHERE k = ?")
	}
	if err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// Close closes both handles.
func (e *Env) Close() {
	for _, st := range []*sql.Stmt{e.upsert, e.get} {
		if st != nil {
			st.Close()
		}
	}
	e.Store.Close()
	e.Raw.Close()
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
}

// Key returns the benchmark key number i under prefix.
func Key(prefix string, i int) codec.Key {
	return codec.Key{codec.String(prefix), codec.Number(float64(i))}
}

const upsertSQL = "INSERT INTO kv (k, v, ver, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v, ver = excluded.ver, expires_at = excluded.expires_at"

// Seed writes n rows under prefix through raw SQL in one transaction (fast,
// and with store-valid rows: every row gets a fresh stamp from kv_meta).
func (e *Env) Seed(ctx context.Context, prefix string, n int, expiresAt *int64) error {
	tx, err := e.Raw.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var seq int64
	if err := tx.QueryRowContext(ctx, "UPDATE kv_meta SET seq = seq + 1 WHERE id = 0 RETURNING seq").Scan(&seq); err != nil {
		return err
	}
	st, err := tx.PrepareContext(ctx, upsertSQL)
	if err != nil {
		return err
	}
	defer st.Close()
	var exp any
	if expiresAt != nil {
		exp = *expiresAt
	}
	for i := 0; i < n; i++ {
		if _, err := st.ExecContext(ctx, codec.MustEncode(Key(prefix, i)), `{"n":`+strconv.Itoa(i)+`}`, seq, exp); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// rawUpsertTx is the raw floor of a commit: one upsert in its own
// transaction (BEGIN IMMEDIATE through the DSN's _txlock).
func (e *Env) rawUpsertTx(ctx context.Context, k codec.Key, v string) error {
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

// Ops returns the operations of product.md section 5 for keys rows (list
// and sweep work on ranges of that size).
func (e *Env) Ops(keys int) []Op {
	value := []byte(`{"n":1,"holder":"a1b2c3d4-0001-4e5f-8a9b-0c1d2e3f4a5b"}`)
	expired := e.Now - 1
	return []Op{
		{
			Name: "set", Baseline: "one upsert per transaction", Rows: 1,
			Engine: func(ctx context.Context, i int) error {
				_, err := e.Store.Set(ctx, Key("set", i%keys), value, nil)
				return err
			},
			Raw: func(ctx context.Context, i int) error {
				return e.rawUpsertTx(ctx, Key("rawset", i%keys), string(value))
			},
		},
		{
			Name: "get", Baseline: "SELECT by primary key", Rows: 1,
			Reset: once(func(ctx context.Context) error { return e.Seed(ctx, "get", keys, nil) }),
			Engine: func(ctx context.Context, i int) error {
				_, found, err := e.Store.Get(ctx, Key("get", i%keys))
				if err == nil && !found {
					err = fmt.Errorf("get: key %d missing", i%keys)
				}
				return err
			},
			Raw: func(ctx context.Context, i int) error {
				var v string
				var ver int64
				var exp sql.NullInt64
				return e.get.QueryRowContext(ctx, codec.MustEncode(Key("get", i%keys))).Scan(&v, &ver, &exp)
			},
		},
		{
			Name: "check+set", Baseline: "one upsert per transaction", Rows: 1,
			Engine: func(ctx context.Context, i int) error {
				k := Key("cas", i%keys)
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
			Raw: func(ctx context.Context, i int) error {
				return e.rawUpsertTx(ctx, Key("rawcas", i%keys), string(value))
			},
		},
		{
			Name: "list", Baseline: "plain range SELECT", Rows: keys,
			Reset: once(func(ctx context.Context) error { return e.Seed(ctx, "list", keys, nil) }),
			Engine: func(ctx context.Context, _ int) error {
				n := 0
				err := e.Store.Scan(ctx, store.ListOptions{Prefix: codec.Key{codec.String("list")}}, func(store.Entry) error { n++; return nil })
				return expectRows(err, n, keys)
			},
			Raw: func(ctx context.Context, _ int) error {
				p := codec.MustEncode(codec.Key{codec.String("list")})
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
				return expectRows(rows.Err(), n, keys)
			},
		},
		{
			Name: "sweep", Baseline: "plain DELETE of expired rows", Rows: keys,
			Reset: func(ctx context.Context) error { return e.Seed(ctx, "sweep", keys, &expired) },
			Engine: func(ctx context.Context, _ int) error {
				res, err := e.Store.Sweep(ctx, store.SweepOptions{})
				return expectRows(err, int(res.Swept), keys)
			},
			Raw: func(ctx context.Context, _ int) error {
				r, err := e.Raw.ExecContext(ctx, "DELETE FROM kv WHERE expires_at IS NOT NULL AND expires_at <= ?", e.Now)
				if err != nil {
					return err
				}
				n, _ := r.RowsAffected()
				return expectRows(nil, int(n), keys)
			},
		},
	}
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

// Measure runs op ops times on each side (Reset untimed before every call)
// and returns the total time of each.
func Measure(ctx context.Context, op Op, ops int) (engine, raw time.Duration, err error) {
	run := func(f func(ctx context.Context, i int) error) (time.Duration, error) {
		var total time.Duration
		for i := 0; i < ops; i++ {
			if op.Reset != nil {
				if err := op.Reset(ctx); err != nil {
					return 0, err
				}
			}
			start := time.Now()
			if err := f(ctx, i); err != nil {
				return 0, fmt.Errorf("%s: %w", op.Name, err)
			}
			total += time.Since(start)
		}
		return total, nil
	}
	if raw, err = run(op.Raw); err != nil {
		return 0, 0, err
	}
	engine, err = run(op.Engine)
	return engine, raw, err
}
