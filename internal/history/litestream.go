package history

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"kvdeck/internal/usertext"
)

// LitestreamEnv names the variable that gives the litestream binary's
// path; else litestream is looked up on PATH.
const LitestreamEnv = "KVDECK_LITESTREAM"

// Litestream is a Litestream (0.5, LTX) replica, read through the
// litestream binary the user backs up with: `litestream ltx -json -level
// all URL` lists its files, `litestream restore -txid N -o PATH URL`
// rebuilds the database as of a TXID. Driving the binary rather than
// linking the module keeps kvdeck free of the cloud SDKs the module
// brings, and reads every replica type (file, s3, gs, abs, sftp, ...)
// with the binary's own credentials and configuration.
type Litestream struct {
	// Bin is the litestream binary.
	Bin string
	// Replica is the replica URL (file:///backups/prod, s3://bkt/db).
	Replica string
	// Env is the binary's environment (its credentials); nil: kvdeck's.
	Env []string
}

// NewLitestream reads a replica as a store's config names it: a URL, or
// a path, which becomes a file:// URL. bin is the litestream binary
// (LitestreamBin).
func NewLitestream(bin, replica string, env []string) (*Litestream, error) {
	r := strings.TrimSpace(replica)
	if r == "" {
		return nil, errors.New("litestream replica: empty")
	}
	if !strings.Contains(r, "://") {
		abs, err := filepath.Abs(strings.TrimPrefix(r, "file:"))
		if err != nil {
			return nil, err
		}
		r = "file://" + abs
	}
	return &Litestream{Bin: bin, Replica: r, Env: env}, nil
}

// LitestreamBin finds the litestream binary: $KVDECK_LITESTREAM, else
// litestream on PATH.
func LitestreamBin(env map[string]string) (string, error) {
	if p := env[LitestreamEnv]; p != "" {
		return p, nil
	}
	p, err := exec.LookPath("litestream")
	if err != nil {
		return "", fmt.Errorf("reading a Litestream replica needs the litestream binary (0.5 or later) on PATH, or its path in $%s", LitestreamEnv)
	}
	return p, nil
}

// Kind is KindLitestream.
func (l *Litestream) Kind() string { return KindLitestream }

// Describe names the replica.
func (l *Litestream) Describe() string { return "Litestream replica " + l.Replica }

// Limits says what a replica cannot tell.
func (l *Litestream) Limits() string {
	return "a point holds the commits Litestream had synced when it was made (each sync, every second by default, is one TXID); commits between two points are seen only as the later point has them, and Litestream's retention removes older points (compacted files keep fewer of them)"
}

// Points lists the replica's restore points: every TXID that ends an LTX
// file at some level and that a restore can reach (a snapshot, or a
// chain of files from TXID 1), with the earliest time a file records for
// it.
func (l *Litestream) Points(ctx context.Context) ([]Point, error) {
	out, err := l.run(ctx, "ltx", "-json", "-level", "all", l.Replica)
	if err != nil {
		return nil, err
	}
	files, err := ParseLTXList(out)
	if err != nil {
		return nil, fmt.Errorf("%s: litestream ltx -json answered what kvdeck cannot read (%w); kvdeck reads Litestream 0.5", l.Describe(), err)
	}
	return RestorePoints(files), nil
}

// Open restores the database as of p's TXID into a file of w, and makes
// it and its sidecars 0600 (w's directory is 0700 already).
func (l *Litestream) Open(ctx context.Context, p Point, w Dir) (Opened, error) {
	path, err := freshPath(w, fmt.Sprintf("txid-%d", p.TXID))
	if err != nil {
		return Opened{}, err
	}
	if _, err := l.run(ctx, "restore", "-txid", fmt.Sprintf("%016x", p.TXID), "-o", path, l.Replica); err != nil {
		removeDB(path)
		return Opened{}, err
	}
	for _, f := range []string{path, path + "-wal", path + "-shm", path + "-txid"} {
		if err := os.Chmod(f, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			removeDB(path)
			return Opened{}, err
		}
	}
	return Opened{URL: "file:" + path, Close: func(context.Context) error { return removeDB(path) }}, nil
}

// freshPath is a path for a restored database in w that no other
// restore of this command uses (one point may be restored twice: diff
// @txid:3 @txid:3), in a subdirectory of its own.
func freshPath(w Dir, name string) (string, error) {
	dir, err := os.MkdirTemp(w.Dir(), name+"-")
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name+".db"), nil
}

// removeDB removes a restored database, its sidecars and the directory
// freshPath made for it.
func removeDB(path string) error {
	defer os.Remove(filepath.Dir(path)) // fails harmlessly while not empty
	var errs []error
	for _, f := range []string{path, path + "-wal", path + "-shm", path + "-journal", path + "-txid", path + ".tmp"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// litestreamTimeout bounds one litestream command (a restore of a large
// database from a remote replica takes a while; a hung one must not).
const litestreamTimeout = 10 * time.Minute

// run runs the binary and returns its standard output; a failure says
// what it printed on stderr (first lines, sanitised).
func (l *Litestream) run(ctx context.Context, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, litestreamTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, l.Bin, args...)
	cmd.Env = l.Env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled) {
			return nil, ctx.Err()
		}
		why := firstLines(errb.String(), 3)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			why = fmt.Sprintf("no litestream binary at %s (set $%s or put litestream on PATH)", l.Bin, LitestreamEnv)
		} else if strings.Contains(why, "unknown command") || strings.Contains(why, "flag provided but not defined") {
			why += "; kvdeck reads Litestream 0.5 replicas (litestream ltx), is this binary older?"
		}
		if why == "" {
			why = err.Error()
		}
		return nil, fmt.Errorf("litestream %s %s: %s", args[0], l.Replica, why)
	}
	return out.Bytes(), nil
}

// firstLines is up to n non-empty lines of s, joined by "; ", sanitised.
func firstLines(s string, n int) string {
	var lines []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "Error: ")
		if line != "" && len(lines) < n {
			lines = append(lines, usertext.Sanitize(line))
		}
	}
	return strings.Join(lines, "; ")
}

// LTXFile is one file of a replica as `litestream ltx -json` lists it.
type LTXFile struct {
	Level            int
	MinTXID, MaxTXID uint64
	Size             int64
	// At is the time the file records (epoch ms; to the second).
	At int64
}

// ltxJSON is the shape litestream 0.5 prints: TXIDs as 16 hex digits.
type ltxJSON struct {
	Level     *int   `json:"level"`
	MinTXID   string `json:"min_txid"`
	MaxTXID   string `json:"max_txid"`
	Size      int64  `json:"size"`
	Timestamp string `json:"timestamp"`
}

// ParseLTXList reads the output of `litestream ltx -json -level all`.
func ParseLTXList(b []byte) ([]LTXFile, error) {
	var raw []ltxJSON
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("not a JSON list of LTX files: %w", err)
	}
	out := make([]LTXFile, 0, len(raw))
	for i, r := range raw {
		if r.Level == nil || *r.Level < 0 || *r.Level > 9 {
			return nil, fmt.Errorf("file %d: level missing or not 0-9", i+1)
		}
		lo, err1 := strconv.ParseUint(r.MinTXID, 16, 64)
		hi, err2 := strconv.ParseUint(r.MaxTXID, 16, 64)
		if err1 != nil || err2 != nil || lo == 0 || hi < lo {
			return nil, fmt.Errorf("file %d: min_txid %q, max_txid %q are not a TXID range", i+1, usertext.Sanitize(r.MinTXID), usertext.Sanitize(r.MaxTXID))
		}
		at, err := time.Parse(time.RFC3339Nano, r.Timestamp)
		if err != nil {
			return nil, fmt.Errorf("file %d: timestamp %q is not RFC 3339", i+1, usertext.Sanitize(r.Timestamp))
		}
		out = append(out, LTXFile{Level: *r.Level, MinTXID: lo, MaxTXID: hi, Size: r.Size, At: at.UnixMilli()})
	}
	return out, nil
}

// snapshotLevel is Litestream's level of whole-database snapshots.
const snapshotLevel = 9

// RestorePoints are the TXIDs a restore reaches, oldest first: a
// snapshot's, or the end of a file that starts at most one past a TXID
// already reached (TXID 0 is reached: an empty database), as
// Litestream's restore plan chains them. Each point's time is the
// earliest a file ending there records (a compaction re-writes the TXID
// later; the first file is closest to when the state existed).
func RestorePoints(files []LTXFile) []Point {
	sorted := append([]LTXFile(nil), files...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].MaxTXID != sorted[j].MaxTXID {
			return sorted[i].MaxTXID < sorted[j].MaxTXID
		}
		return sorted[i].MinTXID < sorted[j].MinTXID
	})
	reached := []uint64{0} // ascending
	var out []Point
	for i := 0; i < len(sorted); {
		hi := sorted[i].MaxTXID
		ok, at := false, int64(0)
		for ; i < len(sorted) && sorted[i].MaxTXID == hi; i++ {
			f := sorted[i]
			if at == 0 || f.At < at {
				at = f.At
			}
			// The newest TXID reached below hi: the most a file may start
			// after. reached is ascending and all of it is below hi.
			last := reached[len(reached)-1]
			if f.Level == snapshotLevel || f.MinTXID <= last+1 {
				ok = true
			}
		}
		if ok {
			reached = append(reached, hi)
			out = append(out, Point{TXID: hi, At: at})
		}
	}
	return out
}
