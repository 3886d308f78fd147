package hrana

import (
	"errors"
	"io"
	"sync"
)

// jsonRef is a JSON value left undecoded, as a slice of the answer being
// decoded (json.RawMessage copies it): valid only while that answer is,
// so it never outlives the decoding function.
type jsonRef []byte

// UnmarshalJSON implements json.Unmarshaler.
func (r *jsonRef) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

// answerBufs keeps the buffers a transport's answers are read into, for
// its next answers: nothing decoded from an answer refers to its buffer.
// A sync.Pool lost them at nearly every collection while large values
// were read (each read is megabytes of garbage), and an answer whose
// length is not announced (sqld gzips what Go's client accepts gzipped)
// costs twice its length to read into a new buffer. At most keptAnswers
// buffers of at most maxKeptAnswer bytes are kept. The zero value is
// ready.
type answerBufs struct {
	mu   sync.Mutex
	free []*[]byte
}

const (
	keptAnswers   = 2
	maxKeptAnswer = 16 << 20
)

// get returns a kept buffer, or a new small one.
func (k *answerBufs) get() *[]byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	if n := len(k.free); n > 0 {
		b := k.free[n-1]
		k.free = k.free[:n-1]
		return b
	}
	b := make([]byte, 0, 4096)
	return &b
}

// put keeps b for a later answer, unless it is too large or enough are.
func (k *answerBufs) put(b *[]byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if cap(*b) <= maxKeptAnswer && len(k.free) < keptAnswers {
		*b = (*b)[:0]
		k.free = append(k.free, b)
	}
}

// readAnswer reads r to its end into buf (its length is reset). When
// size, the answer's announced length (-1: unknown, as for a gzipped
// answer), is known and buf lacks room, into a buffer of exactly that
// room; else what does not fit in buf is read in chunks that grow, and
// copied once into a buffer of the answer's length (and a little room
// to spare), as io.ReadAll does
// (append's growth by a quarter, copying as it goes, allocated five
// times a large answer's length).
func readAnswer(r io.Reader, buf []byte, size int64) ([]byte, error) {
	buf = buf[:0]
	if size >= 0 && size < maxPipelineAnswer && int(size)+1 > cap(buf) {
		// One byte more: the read that meets the end needs room.
		buf = make([]byte, 0, int(size)+1)
	}
	var chunks [][]byte
	cur, total := buf, 0
	for {
		if len(cur) == cap(cur) {
			chunks = append(chunks, cur)
			total += len(cur)
			cur = make([]byte, 0, max(64<<10, total/2))
		}
		n, err := r.Read(cur[len(cur):cap(cur)])
		cur = cur[:len(cur)+n]
		if err != nil && !errors.Is(err, io.EOF) {
			return cur[:0], err
		}
		if err == nil {
			continue
		}
		if chunks == nil {
			return cur, nil
		}
		// Room to spare: a buffer kept for the next answer that is
		// exactly as long would take a chunk and a copy again just to
		// meet the end.
		size := total + len(cur)
		out := make([]byte, 0, size+max(512, size/16))
		for _, c := range chunks {
			out = append(out, c...)
		}
		return append(out, cur...), nil
	}
}
