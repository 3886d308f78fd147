package codec

import "testing"

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
