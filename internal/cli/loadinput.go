package cli

import (
	"fmt"
	"io"
	"os"

	"kvdeck/codec"
	"kvdeck/internal/dumpfile"
)

// loadRecord is one validated line of load input.
type loadRecord struct {
	line      int
	key       codec.Key
	enc       string // the encoded key, for de-duplication
	value     []byte // as the reference stores it
	expiresAt *int64
	// undecodable is a dump row printed with "error": it cannot be written.
	undecodable string
}

// parseLoadLine reads one dump line (dumpfile.Parse): a dump row,
// or any {"key","value","expiresAt"?}. It returns ok false for a blank
// line or a {"meta":...} trailer. A row whose "error" says it does not
// decode is returned undecodable (it cannot be written); any other needs
// a key and a JSON value. The versionstamp is not written (the store
// issues new stamps); expiry follows expiresAt, written as that exact
// epoch millisecond, whatever its distance from now.
func parseLoadLine(line []byte, n int) (rec loadRecord, ok bool, err error) {
	rec.line = n
	l, ok, err := dumpfile.Parse(line, n)
	switch {
	case err != nil || !ok:
		return rec, false, err
	case l.Error != "":
		rec.undecodable = l.Error
		return rec, true, nil
	case l.Key == nil:
		return rec, false, fmt.Errorf("line %d: a row without a key (only its hex) is one that does not decode: load writes rows by key", n)
	case !l.Valid:
		return rec, false, fmt.Errorf("line %d: the value is not JSON (only a row with an error may hold such a value)", n)
	}
	rec.key, rec.enc, rec.value, rec.expiresAt = l.Key, string(l.Raw), l.Value, l.ExpiresAt
	return rec, true, nil
}

// twoPass is load input that can be read twice: once to validate it all,
// once to write it. A regular file is opened again; stdin or a pipe is
// copied to a temporary file during the first pass.
type twoPass struct {
	first   io.Reader
	second  func() (io.Reader, error)
	cleanup func()
}

// openTwoPass prepares path ("-" for stdin) for two passes.
func openTwoPass(path string, stdin io.Reader) (*twoPass, error) {
	if path != "-" {
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
			f, err := os.Open(path)
			if err != nil {
				return nil, fmt.Errorf("open input: %w", err)
			}
			tp := &twoPass{first: f}
			var g *os.File
			tp.second = func() (io.Reader, error) {
				g, err = os.Open(path)
				return g, err
			}
			tp.cleanup = func() {
				f.Close()
				if g != nil {
					g.Close()
				}
			}
			return tp, nil
		}
	}
	src, err := OpenInput(path, stdin)
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp("", "kvdeck-load-*.jsonl")
	if err != nil {
		src.Close()
		return nil, fmt.Errorf("spool the input: %w", err)
	}
	return &twoPass{
		first: io.TeeReader(src, tmp),
		second: func() (io.Reader, error) {
			_, err := tmp.Seek(0, io.SeekStart)
			return tmp, err
		},
		cleanup: func() {
			src.Close()
			tmp.Close()
			os.Remove(tmp.Name())
		},
	}, nil
}
