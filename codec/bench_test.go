package codec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

var benchKey = Key{String("dwk_queue_due"), String("invoices"), Number(1767312000000), String("7d3f0a1e-0000-4b1a-9c2d-00000000a001")}

func BenchmarkEncode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(benchKey); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	enc := MustEncode(benchKey)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(enc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompare(b *testing.B) {
	other := append(Key{}, benchKey...)
	other[3] = String("7d3f0a1e-0000-4b1a-9c2d-00000000a002")
	for b.Loop() {
		if Compare(benchKey, other) >= 0 {
			b.Fatal("order")
		}
	}
}

func BenchmarkFormat(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = Format(benchKey)
	}
}

func BenchmarkNormalizeJSON(b *testing.B) {
	in := []byte(`{"body":{"invoice":"INV-1001","amount":1299,"currency":"EUR","lines":[1.5,2.25,-0,1e21]},"attempts":0}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NormalizeJSON(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNormalizeJSONLarge: NormalizeJSON over large documents (a
// 4 MB string, 100k small records), beside encoding/json's Compact of the
// same bytes as the baseline of one run (Compact only checks and strips
// white space: NormalizeJSON also parses numbers and orders members).
func BenchmarkNormalizeJSONLarge(b *testing.B) {
	var records strings.Builder
	records.WriteString("[")
	for i := range 100000 {
		if i > 0 {
			records.WriteString(",")
		}
		fmt.Fprintf(&records, `{"id":%d,"name":"user %d","score":%d.5,"tags":["a","b"],"ok":true}`, i, i, i)
	}
	records.WriteString("]")
	for _, in := range []struct {
		name string
		doc  []byte
	}{
		{"string", []byte(`{"blob":"` + strings.Repeat("x", 4<<20) + `"}`)},
		{"records", []byte(records.String())},
	} {
		b.Run(in.name+"/normalize", func(b *testing.B) {
			b.SetBytes(int64(len(in.doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := NormalizeJSON(in.doc); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/compact", func(b *testing.B) {
			b.SetBytes(int64(len(in.doc)))
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := json.Compact(&buf, in.doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
