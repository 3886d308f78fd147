package cli

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// failingReader fails the test that reads it: a refused write reads no
// input.
type failingReader struct{ t *testing.T }

func (r failingReader) Read([]byte) (int, error) {
	r.t.Error("a write refused under --read-only read its input")
	return 0, errors.New("read")
}

// writeCommands is one invocation of every command that writes, by its
// type; TestWritesRefusedReadOnly checks that the list names every writer
// of the command tree.
var writeCommands = map[string][]string{
	"SetCmd":          {"set", `["k"]`, "2"},
	"DeleteCmd":       {"delete", `["k"]`},
	"LoadCmd":         {"load", "-"},
	"AtomicCmd":       {"atomic", "-"},
	"SweepCmd":        {"sweep"},
	"InitCmd":         {"init"},
	"RaceCmd":         {"race", `["counter"]`},
	"DemoCmd":         {"demo", "--headless", "--duration", "1s"},
	"LeaseAcquireCmd": {"lease", "acquire", `["dwk_lease", "job"]`},
	"LeaseReleaseCmd": {"lease", "release", `["dwk_lease", "job"]`, "00000000000000000001"},
	"LeaseBreakCmd":   {"lease", "break", `["dwk_lease", "job"]`},
	"AlarmSetCmd":     {"alarm", "set", "c", "id", "+1m"},
	"AlarmDeleteCmd":  {"alarm", "delete", "c", "id"},
	"AlarmFireCmd":    {"alarm", "fire", "c"},
	"QueueSendCmd":    {"queue", "send", "q", "1"},
	"QueuePollCmd":    {"queue", "poll", "q"},
	"QueuePurgeCmd":   {"queue", "purge", "q"},
	"IndexAddCmd":     {"index", "add"},
	"IndexDropCmd":    {"index", "drop"},
	"WALCmd":          {"wal", "--yes"},
	"UndoCmd":         {"undo", "--yes"},
	"RedoCmd":         {"redo", "--yes"},
	"CopyCmd":         {"copy", "--from", "x.db", "--to", "y.db", "[]"},
	"PutBackCmd":      {"--at", "txid:1", "put-back", `["k"]`},
}

// writers walks the kong command tree (Root's cmd fields, recursively) and
// returns the name of every command type that declares a write.
func writers(t reflect.Type, out map[string]bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if _, ok := f.Tag.Lookup("cmd"); !ok {
			continue
		}
		if reflect.PointerTo(f.Type).Implements(reflect.TypeFor[writer]()) {
			out[f.Type.Name()] = true
		}
		writers(f.Type, out)
	}
}

// TestWritesRefusedReadOnly: every command that writes declares it
// (writer) and is refused under --read-only in one place, with one message
// naming the write, before it reads its input or opens the store: the
// file is unchanged and no input was read. Before the
// one opener, index add and drop were refused by the engine in other
// words, and race, demo and init checked their flags first.
func TestWritesRefusedReadOnly(t *testing.T) {
	found := map[string]bool{}
	writers(reflect.TypeFor[Root](), found)
	for name := range found {
		if writeCommands[name] == nil {
			t.Errorf("%s writes (it has a Writes method) but writeCommands has no invocation of it", name)
		}
	}
	for name := range writeCommands {
		if !found[name] {
			t.Errorf("%s is in writeCommands but declares no write (no Writes method)", name)
		}
	}
	path := filepath.Join(t.TempDir(), "ro.db")
	c := &cli{t: t, url: path, now: storetest.T0}
	c.must("set", `["k"]`, "1")
	before := fileSum(t, path)
	for name, args := range writeCommands {
		var out, errb bytes.Buffer
		full := append([]string{"--db", path, "--read-only"}, args...)
		code := Main(context.Background(), full, failingReader{t}, &out, &errb, map[string]string{"XDG_STATE_HOME": t.TempDir()})
		what := (&Root{}).writeName(name)
		want := "kvdeck: store is read-only: " + what + " refused; the store was opened with --read-only\n"
		if code != CodeError || errb.String() != want || out.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2 and %q", strings.Join(args, " "), code, out.String(), errb.String(), want)
		}
		if fileSum(t, path) != before {
			t.Fatalf("%s changed the store under --read-only", strings.Join(args, " "))
		}
	}
	// A dry run and the journal's list only read: not refused.
	c.must("--read-only", "sweep", "--dry-run")
	c.must("--read-only", "undo", "--list")
}

// writeName is what the command type name declares: "lease acquire" for
// LeaseAcquireCmd.
func (r *Root) writeName(typeName string) string {
	var find func(v reflect.Value) string
	find = func(v reflect.Value) string {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if _, ok := f.Tag.Lookup("cmd"); !ok {
				continue
			}
			if f.Type.Name() == typeName {
				return v.Field(i).Addr().Interface().(writer).Writes()
			}
			if s := find(v.Field(i)); s != "" {
				return s
			}
		}
		return ""
	}
	return find(reflect.ValueOf(r).Elem())
}

// TestOpenToWriteRefusesReadOnly: the opener refuses a write by itself
// too, so a command that writes without declaring it is refused all the
// same.
func TestOpenToWriteRefusesReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ro.db")
	app := &App{Globals: Globals{DB: path, ReadOnly: true}, ctx: context.Background(), command: "lease acquire", Clock: store.NewVirtualClock(nil)}
	for _, create := range []Creation{MayCreate, MustExist} {
		s, err := app.Open(app.ctx, Opening{Write: true, Create: create})
		if !errors.Is(err, store.ErrReadOnly) || s != nil || !strings.Contains(err.Error(), "lease acquire refused") {
			t.Errorf("Open to write (create %v) under --read-only: %v, %v; want ErrReadOnly naming lease acquire", create, s, err)
		}
	}
}
