package codec

import (
	"math"
	"strconv"
)

// appendJSNumber appends f as JavaScript's Number.prototype.toString would
// write it (ECMA-262 Number::toString): the shortest digits that round-trip,
// in plain decimal when 1e-7 <= |f| < 1e21 and in exponent form ("1e+21",
// "5e-324", "1.5e-7") otherwise. -0 is written "0" and non-finite values as
// "Infinity", "-Infinity" and "NaN", as JavaScript does; callers that need
// something else (key text keeps "-0", JSON writes null) check first.
//
// Go's shortest formatting and V8's pick the same digits (shortest, then
// closest to the exact value); testdata/jsnumber.txt, produced by node,
// pins that down. Only the layout rules differ, so they are redone here.
func appendJSNumber(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		return append(dst, '0')
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// "d.ddddde±XX": the digits and the decimal exponent of the first one.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	var digits [20]byte
	k := 0
	i := 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[k] = e[i]
			k++
		}
	}
	exp, _ := strconv.Atoi(string(e[i+1:])) // AppendFloat always writes a valid exponent
	n := exp + 1                            // the value is 0.d1d2...dk × 10^n
	d := digits[:k]
	switch {
	case k <= n && n <= 21:
		dst = append(dst, d...)
		for j := k; j < n; j++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, d[:n]...)
		dst = append(dst, '.')
		dst = append(dst, d[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for j := 0; j < -n; j++ {
			dst = append(dst, '0')
		}
		dst = append(dst, d...)
	default:
		dst = append(dst, d[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, d[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

// formatJSNumber is appendJSNumber into a new string.
func formatJSNumber(f float64) string {
	return string(appendJSNumber(nil, f))
}

// jsonNumberLen returns the length of the JSON number (RFC 8259 grammar:
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?) at the start of s, or 0
// with the offset of the first offending byte when s does not start with
// one.
func jsonNumberLen(s string) (n int, bad int) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return 0, i
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || !isDigit(s[i]) {
			return 0, i
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || !isDigit(s[i]) {
			return 0, i
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	return i, -1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseJSONNumber converts a JSON number literal the way JSON.parse does:
// correctly rounded to the nearest float64, overflow to ±Infinity and
// underflow to (signed) zero. The literal must already match the grammar.
func parseJSONNumber(lit string) float64 {
	// Only ErrRange is possible for a grammatical literal, and with it
	// ParseFloat returns ±Inf (or ±0), which is what JavaScript yields.
	f, _ := strconv.ParseFloat(lit, 64)
	return f
}
