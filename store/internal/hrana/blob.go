package hrana

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"strings"
)

// A blob's base64 text is most of an answer that holds a large value,
// and encoding/json goes over every string several times (its validity
// scan, then each nested decoding's) and makes a string of it before
// native decodes it: 2 MB read over HTTP spent 90% of the client's
// time there. extractBlobs takes the blobs' text out of the answer
// first, in one pass: each "base64" member's string of at least
// minExtract base64 characters (outside any other string) is decoded
// at once into its bytes, and left in the answer as a short mark that
// names it; restoreBlobs puts the bytes in the values decoded. An answer
// that already holds the mark's text anywhere is left whole, so no
// answer can forge one.

// blobMark begins the mark left in place of a blob's text; its index in
// the blobs follows.
const blobMark = "#kvdeck-blob-"

// minExtract is the shortest base64 text taken out (longer than any mark).
const minExtract = 64

var base64Member = []byte(`"base64":"`)

// extractBlobs rewrites answer in place (it only shrinks) and returns
// it with the decoded blobs its marks name.
func extractBlobs(answer []byte) ([]byte, [][]byte) {
	if !bytes.Contains(answer, base64Member) || bytes.Contains(answer, []byte(blobMark)) {
		return answer, nil
	}
	var blobs [][]byte
	w, r := 0, 0
	put := func(p []byte) { // p starts at answer[r]
		if w != r {
			copy(answer[w:], p)
		}
		w += len(p)
	}
	for r < len(answer) {
		i := bytes.IndexByte(answer[r:], '"')
		if i < 0 {
			put(answer[r:])
			r = len(answer)
			break
		}
		if i > 0 {
			put(answer[r : r+i])
			r += i
		}
		// answer[r] opens a string.
		if blob, n, ok := blobAt(answer[r:]); ok {
			mark := blobMark + strconv.Itoa(len(blobs))
			blobs = append(blobs, blob)
			copy(answer[w:], base64Member)
			w += len(base64Member)
			w += copy(answer[w:], mark)
			answer[w] = '"'
			w++
			r += n + 1
			continue
		}
		end := stringEnd(answer, r)
		put(answer[r:end])
		r = end
	}
	return answer[:w], blobs
}

// blobAt decodes the base64 text of a "base64" member at the start of p,
// when it is long enough and decodes as native would decode it; n is
// the length up to the text's closing quote (excluded).
func blobAt(p []byte) (blob []byte, n int, ok bool) {
	if !bytes.HasPrefix(p, base64Member) {
		return nil, 0, false
	}
	text := p[len(base64Member):]
	end := bytes.IndexByte(text, '"')
	if end < minExtract {
		return nil, 0, false
	}
	text = text[:end]
	if bytes.ContainsAny(text, "\r\n") {
		// The decoder skips them; in a JSON string they are an error,
		// which taking the text out would hide.
		return nil, 0, false
	}
	// Anything else outside the alphabet (an escape, a pad inside the
	// text) fails the decoding, as in native.
	text = bytes.TrimRight(text, "=")
	blob = make([]byte, base64.RawStdEncoding.DecodedLen(len(text)))
	m, err := base64.RawStdEncoding.Decode(blob, text)
	if err != nil {
		return nil, 0, false
	}
	return blob[:m], len(base64Member) + end, true
}

// stringEnd is the index just past the string that opens at answer[at]
// (len(answer) when it does not end).
func stringEnd(answer []byte, at int) int {
	for i := at + 1; i < len(answer); {
		j := bytes.IndexAny(answer[i:], `"\`)
		if j < 0 {
			break
		}
		if answer[i+j] == '"' {
			return i + j + 1
		}
		i += j + 2 // an escape and the character it escapes
	}
	return len(answer)
}

// restoreBlobs gives the values of res whose base64 is a mark the
// bytes it names.
func restoreBlobs(res *Result, blobs [][]byte) {
	if len(blobs) == 0 {
		return
	}
	for _, st := range res.stmtResults() {
		if st == nil {
			continue
		}
		for _, row := range st.Rows {
			for i := range row {
				restoreBlob(&row[i], blobs)
			}
		}
	}
}

func restoreBlob(v *Value, blobs [][]byte) {
	if v.Base64 == nil || !strings.HasPrefix(*v.Base64, blobMark) {
		return
	}
	n, err := strconv.Atoi(strings.TrimPrefix(*v.Base64, blobMark))
	if err != nil || n < 0 || n >= len(blobs) {
		return
	}
	v.Base64, v.blob = nil, blobs[n]
}
