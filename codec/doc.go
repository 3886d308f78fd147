// Package codec converts keys of the reference coordination store between
// their typed form (Key), their order-preserving byte encoding, the key text
// people type and read, and the tagged JSON used for interchange; it also
// formats versionstamps and re-emits JSON values exactly as the reference's
// JavaScript writes them. It uses the standard library only, so every other
// package can depend on it.
//
// The encoding is the store's contract with the
// services that share a database, so it must match the reference byte for
// byte: Compare(a, b) equals bytes.Compare of the encodings, and Decode
// accepts exactly what Encode produces. Decoders never panic; malformed
// bytes yield a *DecodeError naming the byte offset.
//
// Files: key.go (Kind, Part, Key, Compare), encode.go and decode.go (the
// byte form and range helpers), text.go (key text), tagged.go (tagged JSON),
// jsonparse.go (a JSON reader with JavaScript semantics), jsonvalue.go
// (NormalizeJSON and string quoting), jsnumber.go (JavaScript number
// formatting), stamp.go (versionstamps), errors.go (sentinels).
package codec
