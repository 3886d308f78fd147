package cli

import (
	"bufio"
	"encoding/binary"
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

// loadSpill keeps a load's validated records between its two passes:
// the input is parsed once, while it is validated, and the writing pass
// reads the records back in a binary form without parsing JSON again
// (parsing was 69% of a load of 1M lines when each line was parsed in
// both passes). Memory stays flat: the records wait in a temporary file
// (0600, removed at the end), about the size of their keys and values.
type loadSpill struct {
	f *os.File
	w *bufio.Writer
	n int // records written
}

// Flags of a spilled record.
const (
	spillUndecodable = 1 << iota // a dump row that does not decode: counted, not written
	spillExpiry                  // expiresAt follows
)

// newLoadSpill makes an empty spill in the temporary directory.
func newLoadSpill() (*loadSpill, error) {
	f, err := os.CreateTemp("", "kvdeck-load-*.spill")
	if err != nil {
		return nil, fmt.Errorf("spill the input: %w", err)
	}
	return &loadSpill{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// add writes rec: its line, flags, encoded key, value and expiry.
func (s *loadSpill) add(rec loadRecord) error {
	var flags byte
	if rec.undecodable != "" {
		flags |= spillUndecodable
	}
	if rec.expiresAt != nil {
		flags |= spillExpiry
	}
	var head [2*binary.MaxVarintLen64 + 1]byte
	b := binary.AppendUvarint(head[:0], uint64(rec.line))
	b = append(b, flags)
	if flags&spillUndecodable == 0 {
		b = binary.AppendUvarint(b, uint64(len(rec.enc)))
	}
	if _, err := s.w.Write(b); err != nil {
		return fmt.Errorf("spill the input: %w", err)
	}
	if flags&spillUndecodable != 0 {
		s.n++
		return nil
	}
	s.w.WriteString(rec.enc)
	b = binary.AppendUvarint(head[:0], uint64(len(rec.value)))
	s.w.Write(b)
	s.w.Write(rec.value)
	if rec.expiresAt != nil {
		s.w.Write(binary.AppendVarint(head[:0], *rec.expiresAt))
	}
	if _, err := s.w.Write(nil); err != nil { // bufio keeps its first error
		return fmt.Errorf("spill the input: %w", err)
	}
	s.n++
	return nil
}

// each reads the records back, in order, to fn: undecodable ones with
// their flag only (undecodable "spilled"), others with key, value and
// expiry.
func (s *loadSpill) each(fn func(loadRecord) error) error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("spill the input: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read the spilled input: %w", err)
	}
	r := bufio.NewReaderSize(s.f, 1<<20)
	for i := 0; i < s.n; i++ {
		rec, err := readSpilled(r)
		if err != nil {
			return fmt.Errorf("read the spilled input (record %d of %d): %w", i+1, s.n, err)
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	return nil
}

// readSpilled reads one record add wrote.
func readSpilled(r *bufio.Reader) (rec loadRecord, err error) {
	line, err := binary.ReadUvarint(r)
	if err != nil {
		return rec, err
	}
	rec.line = int(line)
	flags, err := r.ReadByte()
	if err != nil {
		return rec, err
	}
	if flags&spillUndecodable != 0 {
		rec.undecodable = "spilled"
		return rec, nil
	}
	enc, err := readSized(r)
	if err != nil {
		return rec, err
	}
	if rec.key, err = codec.Decode(enc); err != nil {
		return rec, err
	}
	rec.enc = string(enc)
	if rec.value, err = readSized(r); err != nil {
		return rec, err
	}
	if flags&spillExpiry != 0 {
		exp, err := binary.ReadVarint(r)
		if err != nil {
			return rec, err
		}
		rec.expiresAt = &exp
	}
	return rec, nil
}

// readSized reads a length and that many bytes.
func readSized(r *bufio.Reader) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if n > dumpfile.MaxLine {
		return nil, fmt.Errorf("a length of %d bytes", n)
	}
	b := make([]byte, n)
	_, err = io.ReadFull(r, b)
	return b, err
}

// remove closes and deletes the spill.
func (s *loadSpill) remove() {
	s.f.Close()
	os.Remove(s.f.Name())
}
