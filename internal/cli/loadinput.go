package cli

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"kvdeck/codec"
	"kvdeck/internal/atomicjson"
	"kvdeck/internal/dumpfile"
)

// dumpFields are the fields of a dump line (dumpfile.Entry, physical) and
// its meta trailer: what load and diff accept.
var dumpFields = dumpfile.Fields

// maxLoadLine bounds one line of load and diff input. It is far above any
// value a store can return (SQLite's default string limit is 1e9 bytes;
// a dump line escapes a value that is not JSON): whatever set wrote, dump
// wrote and load reads back (issue 25 point 9: a 64 MiB limit refused
// dumps of values set without complaint). Input that is not JSON lines
// fails at its first bytes instead (firstLineByte).
const maxLoadLine = 8 << 30

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

// parseLoadLine reads one line: a dump row
// {"key","hex","value","versionstamp","expiresAt","expired","malformed"?}
// or any {"key","value","expiresAt"?}. It returns ok false for a blank line
// or a {"meta":...} trailer. versionstamp, expired and malformed are
// ignored (the store issues new stamps; expiry follows expiresAt, written
// as that exact epoch millisecond, whatever its distance from now); hex,
// when present, must match the key.
func parseLoadLine(line []byte, n int) (rec loadRecord, ok bool, err error) {
	rec.line = n
	if len(bytes.Trim(line, " \t\r")) == 0 {
		return rec, false, nil
	}
	o, err := atomicjson.DecodeObject(line, fmt.Sprintf("line %d", n), dumpFields...)
	if err != nil {
		return rec, false, err
	}
	if o.Has("meta") {
		if o.Len() != 1 {
			return rec, false, fmt.Errorf("%s: a meta line carries nothing else", o.Where())
		}
		return rec, false, nil
	}
	if msg, err := o.Str("error"); err != nil {
		return rec, false, err
	} else if msg != "" {
		rec.undecodable = msg
		return rec, true, nil
	}
	if rec.key, err = o.Key("key"); err != nil {
		return rec, false, err
	}
	enc := codec.MustEncode(rec.key)
	rec.enc = string(enc)
	if h, err := o.Str("hex"); err != nil {
		return rec, false, err
	} else if o.Has("hex") && !o.IsNull("hex") {
		if raw, err := hex.DecodeString(h); err != nil || !bytes.Equal(raw, enc) {
			return rec, false, fmt.Errorf("%s: %q does not match the key, which encodes to %x", o.Field("hex"), h, enc)
		}
	}
	if rec.value, err = o.Value("value"); err != nil {
		return rec, false, err
	}
	if rec.expiresAt, err = o.Int("expiresAt"); err != nil {
		return rec, false, err
	}
	return rec, true, nil
}

// readLine reads one line without its newline; io.EOF when none is left.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line) == 0 && errors.Is(err, bufio.ErrBufferFull) {
			if b, ok := firstLineByte(chunk); ok && b != '{' {
				// A long line that is no JSON object: say so now rather
				// than read a garbage file's gigabytes looking for its
				// first newline (a short one is reported with the other
				// malformed lines).
				return nil, fmt.Errorf("not a JSON object: it starts with %q", string([]byte{b}))
			}
		}
		line = append(line, chunk...)
		if len(line) > maxLoadLine {
			return nil, fmt.Errorf("a line is longer than %d MiB", maxLoadLine>>20)
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil
		default:
			return nil, err
		}
	}
}

// firstLineByte is the first byte of chunk after JSON white space; ok is
// false when the chunk holds only white space.
func firstLineByte(chunk []byte) (byte, bool) {
	for _, b := range chunk {
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b, true
	}
	return 0, false
}

// eachLine calls fn with every line of r and its 1-based number.
func eachLine(r io.Reader, fn func(line []byte, n int) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if err := fn(line, n); err != nil {
			return err
		}
	}
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
