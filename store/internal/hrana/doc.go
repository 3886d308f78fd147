// Package hrana is kvdeck's own client of the Hrana protocol that sqld
// and Turso speak, over HTTP (a pipeline: requests and the stream's close
// in one POST; a streamed cursor) and over WebSocket (a write transaction
// as one batch on a stream of its own; reads on long-lived streams). It
// returns rows of Hrana values and knows nothing of the store built on it
// (kvdeck/store reaches it through its server connection only).
//
// An answer is read into a kept buffer (of exactly its length when it is
// announced: answerBufs, readAnswer), its rows arrays and its blobs'
// base64 are decoded in one pass before encoding/json reads the rest
// (extractRows, extractBlobs; fuzzed against encoding/json alone), and
// the buffer is kept for the next answer: a large value costs a small
// multiple of its size (libsql-client-go's reads allocated 9 times it).
//
// Files: client.go (Client, one server's client over either transport),
// http.go (HTTP, the pipeline and its decoder), cursor.go (the cursor and
// its Decoder), ws.go and wsread.go (WS, the WebSocket connections and
// the process's write gate), route.go (Route: the sqld namespace, the
// replication index a replica waits for), meter.go (Meter, Cost),
// rows.go, blob.go, row.go (the decoders that spare encoding/json), and
// bufs.go (the kept buffers).
package hrana
