package journal

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"kvdeck/store"
)

// DefaultMaxBytes is the size past which a store's journal is compacted
// (retain.go): the oldest actions are dropped, whole, with their undos and
// redos, until it is half this size; the newest action is always kept
// whole, however large.
const DefaultMaxBytes = 64 << 20

// StateDir is the directory journals live in: $XDG_STATE_HOME/kvdeck
// when XDG_STATE_HOME is set to an absolute path (the XDG spec ignores a
// relative one), else $HOME/.local/state/kvdeck, on every OS (macOS
// included: one place to look, the same as on Linux). getenv reads the
// environment (the CLI passes its own, so tests control it).
func StateDir(getenv func(string) string) (string, error) {
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "kvdeck"), nil
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".local", "state", "kvdeck"), nil
	}
	return "", errors.New("neither XDG_STATE_HOME nor HOME is set: there is nowhere to keep the write journal")
}

// storeIdentity is what names a store's journal: the URL without
// credentials (store.ParseTarget refuses a URL that carries one), with a
// file's path made absolute and a server reduced to host:port and path,
// so file:x.db and ./x.db, or http:// and ws:// to one sqld, share a
// journal. slug is a readable part of it for the file name.
func storeIdentity(storeURL string) (id, slug string, err error) {
	t, err := store.ParseTarget(storeURL)
	if err != nil {
		return "", "", err
	}
	if !t.Transport.Remote() {
		abs, err := filepath.Abs(t.Path)
		if err != nil {
			return "", "", err
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		return "file:" + abs, filepath.Base(abs), nil
	}
	path := ""
	if _, rest, ok := strings.Cut(t.URL, "://"); ok {
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			path = strings.TrimRight(rest[i:], "/")
		}
	}
	return "libsql://" + t.Server() + path, t.Server() + path, nil
}

// fileName is the journal file's name for a store: a readable slug and a
// stable hash of its identity.
func fileName(id, slug string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(slug) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	sum := sha256.Sum256([]byte(id))
	return strings.Trim(b.String(), "._") + "-" + hex.EncodeToString(sum[:6]) + ".jsonl"
}

// prepare makes the directory (0700) and, once per Journal, narrows the
// modes of an existing directory and files that are wider than 0700 and
// 0600: the journal holds stored values, which may be secrets, and a
// directory made by an older kvdeck or by hand must not show them to
// other users. A mode that cannot be narrowed refuses the write.
func (j *Journal) prepare() error {
	if j.prepared {
		return nil
	}
	if err := os.MkdirAll(j.dir, 0o700); err != nil {
		return err
	}
	if err := narrow(j.dir, 0o700); err != nil {
		return err
	}
	for _, p := range []string{j.path, j.path + ".1", j.path + ".lock"} {
		if err := narrow(p, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	j.prepared = true
	return nil
}

// narrow chmods path to mode when its permissions grant anything to the
// group or others.
func narrow(path string, mode os.FileMode) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	if err := os.Chmod(path, mode); err != nil {
		return fmt.Errorf("%s is readable by other users (%v) and could not be narrowed to %v: %w", path, fi.Mode().Perm(), mode, err)
	}
	return nil
}

// appendIntent appends an intent line of action act, synced when sync.
// The first write of an action in this process may compact the file
// first (retain.go): never in the middle of an action, so that a large
// one pays for reading the file once, not per write.
func (j *Journal) appendIntent(act string, line []byte, sync bool) error {
	j.mu.Lock()
	first := !j.acts[act]
	j.acts[act] = true
	j.mu.Unlock()
	return j.append(line, first, sync)
}

// appendLine appends an outcome line, synced when sync.
func (j *Journal) appendLine(line []byte, sync bool) error { return j.append(line, false, sync) }

// append appends one line with one write call on a descriptor opened
// with O_APPEND, so lines of concurrent kvdeck processes never
// interleave. With sync it syncs the file to the disk before returning:
// an intent is on the disk before its write is sent, an outcome before
// the command says the write was made. Without (the outcomes of a
// sweep's batch, BeforeAll) the line is in the operating system's cache,
// which outlives the process, until the next sync or Sync. The file is opened per line under a shared lock on NAME.lock,
// which compaction takes exclusively to rewrite the file, so no line is
// appended to a file being replaced.
func (j *Journal) append(line []byte, mayCompact, sync bool) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.prepare(); err != nil {
		return err
	}
	if mayCompact {
		if err := j.compactIfFull(); err != nil {
			return err
		}
	}
	unlock, err := lockFile(j.path+".lock", false)
	if err != nil {
		return err
	}
	defer unlock()
	_, statErr := os.Stat(j.path)
	f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(line)
	if werr == nil && sync {
		// A sync covers every line written before it.
		if werr = f.Sync(); werr == nil {
			j.unsynced = false
		}
	} else if werr == nil {
		j.unsynced = true
	}
	cerr := f.Close()
	if werr != nil {
		return werr
	}
	if cerr != nil {
		return cerr
	}
	if errors.Is(statErr, os.ErrNotExist) {
		// A new file is found after a crash only if its directory entry
		// is on the disk too.
		return syncDir(j.dir)
	}
	return nil
}

// Sync puts every line this Journal appended unsynced on the disk
// (store.BatchRecorder): the store calls it before it reports an action
// whose writes it recorded with BeforeAll.
func (j *Journal) Sync() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.unsynced {
		return nil
	}
	f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		j.unsynced = false
	}
	return err
}

// syncDir syncs a directory's entries to the disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// line is one parsed line and where it stands; raw is its text as read.
type line struct {
	rec  record
	file string
	no   int
	raw  []byte
}

// readLines reads NAME.1 (a rotated file an older kvdeck left; the next
// compaction folds it in) then NAME: every good line, and a Note for each
// line skipped. A missing file is no error. A line that does not parse is
// skipped with a note; when it holds a good line after a torn one (a
// crash mid-line, then another write appended to it), that line is kept.
func (j *Journal) readLines() ([]line, []Note, error) {
	var out []line
	var notes []Note
	err := j.eachLine(func(file string, no int, text []byte, last bool) error {
		l, note := parseNumbered(text, file, no, last)
		if l != nil {
			l.raw = bytes.Clone(l.raw)
			out = append(out, *l)
		}
		if note != nil {
			notes = append(notes, *note)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, notes, nil
}

// eachLine calls fn with every line that is not blank of NAME.1 then
// NAME, numbered from 1 in its file, without its line feed (text is
// valid only during the call); last says it is the file's last line and
// has none. A missing file is no error.
func (j *Journal) eachLine(fn func(file string, no int, text []byte, last bool) error) error {
	for _, p := range []string{j.path + ".1", j.path} {
		f, err := os.Open(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		err = eachFileLine(f, p, fn)
		f.Close()
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
	}
	return nil
}

// eachFileLine is eachLine over one file.
func eachFileLine(r io.Reader, name string, fn func(file string, no int, text []byte, last bool) error) error {
	br := bufio.NewReaderSize(r, 256<<10)
	var long []byte
	for no := 1; ; no++ {
		raw, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: gather it.
			long = append(long[:0], raw...)
			for errors.Is(err, bufio.ErrBufferFull) {
				raw, err = br.ReadSlice('\n')
				long = append(long, raw...)
			}
			raw = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		text := bytes.TrimSuffix(raw, []byte("\n"))
		if len(bytes.TrimSpace(text)) > 0 {
			if ferr := fn(name, no, text, errors.Is(err, io.EOF)); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
	}
}

// parseNumbered parses line no of file name: the line, or a note of why
// it does not parse, or both when a good line follows a torn one on the
// same line. last says the line is the file's last and has no line feed.
func parseNumbered(text []byte, name string, no int, last bool) (*line, *Note) {
	rec, perr := parseLine(text)
	if perr == nil {
		return &line{rec: rec, file: name, no: no, raw: text}, nil
	}
	why := perr.Error()
	if last {
		why += "; the last line of the file, without its line feed: a write cut short (a crash or a full disk)"
	}
	var good *line
	if i := bytes.LastIndex(text, []byte(linePrefix)); i > 0 {
		if rec, e := parseLine(text[i:]); e == nil {
			good = &line{rec: rec, file: name, no: no, raw: text[i:]}
			why = "a torn line before the good one on the same line"
		}
	}
	return good, &Note{File: name, Line: no, Why: why}
}
