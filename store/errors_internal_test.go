package store

import (
	"encoding/base64"
	"testing"
)

func jwtWith(payload string) string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"EdDSA"}`)) + "." + enc.EncodeToString([]byte(payload)) + ".sig"
}

// TestTokenReadOnly: only a JWT whose claims say "a": "ro" reads as
// read-only; anything else (full access, no claim, not a JWT) does not.
func TestTokenReadOnly(t *testing.T) {
	for tok, want := range map[string]bool{
		jwtWith(`{"a":"ro","exp":1}`):    true,
		jwtWith(`{"a":"rw"}`):            false,
		jwtWith(`{"exp":1}`):             false,
		jwtWith(`{"a":["ro"]}`):          false,
		jwtWith(`not json`):              false,
		"":                               false,
		"not-a-jwt":                      false,
		"a.b.c":                          false,
		jwtWith(`{"a":"ro"}`) + ".extra": false,
		"x." + "eyJhIjoicm8ifQ==" + ".y": true, // padded base64 of {"a":"ro"}
		"x." + "eyJhIjoicm8ifQ" + ".y":   true,
		"x." + "!!!" + ".y":              false,
	} {
		if got := tokenReadOnly(tok); got != want {
			t.Errorf("tokenReadOnly(%q) = %v, want %v", tok, got, want)
		}
	}
}

// FuzzTokenReadOnly: any token string is read without a panic.
func FuzzTokenReadOnly(f *testing.F) {
	f.Add(jwtWith(`{"a":"ro"}`))
	f.Add("a.b.c")
	f.Add("")
	f.Fuzz(func(t *testing.T, tok string) { tokenReadOnly(tok) })
}
