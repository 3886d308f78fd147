package store_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"kvdeck/store"
)

// tokenForms puts tok where a token hides in a URL: a query parameter
// (known name or not), a fragment, user info; each form is built on prefix.
func tokenForms(prefix, tok string) []string {
	return []string{
		prefix + "?authToken=" + tok,
		prefix + "?a=1&jwt=" + tok,
		prefix + "?x=" + tok,
		prefix + "#" + tok,
		prefix + "#authToken=" + tok,
		prefix + "/%zz?authToken=" + tok,
		prefix + ":99999999999?authToken=" + tok,
		prefix + "?authToken=" + tok + "%zz",
	}
}

func userinfoForms(scheme, rest, tok string) []string {
	return []string{
		scheme + "://" + tok + "@" + rest,
		scheme + "://user:" + tok + "@" + rest,
		scheme + "://" + tok + ":@" + rest,
		scheme + "://a@" + tok + "@" + rest,
	}
}

// TestURLErrorsNeverShowTheToken: ParseTarget's errors and displays name
// the URL without its query, fragment and user info (before the fix
// file:x.db?authToken=…, a fragment and an unparsable URL
// echoed the token).
func TestURLErrorsNeverShowTheToken(t *testing.T) {
	const tok = "eyJhbGciOiJFZERTQSJ9.secret123"
	var urls []string
	for _, prefix := range []string{"file:x.db", "x.db", "./dir/x.db", "file:///abs/x.db", "http://127.0.0.1:8080",
		"libsql://db.example.test", "wss://db.example.test/", "http://", "https://[::1", "ftp://host", "file://host", "http://exa mple.test"} {
		urls = append(urls, tokenForms(prefix, tok)...)
	}
	for _, scheme := range []string{"http", "libsql", "wss", "file", "ftp"} {
		urls = append(urls, userinfoForms(scheme, "db.example.test", tok)...)
	}
	for _, u := range urls {
		tg, err := store.ParseTarget(u)
		if err == nil {
			if strings.Contains(tg.Display, tok) || strings.Contains(tg.URL, tok) {
				t.Errorf("ParseTarget(%q) accepted it and keeps the token: %+v", u, tg)
			}
			continue
		}
		if strings.Contains(err.Error(), tok) || strings.Contains(err.Error(), "secret123") {
			t.Errorf("ParseTarget(%q): the error shows the token: %v", u, err)
		}
	}
	// a file URL with a token says so, as a remote one does
	if _, err := store.ParseTarget("file:x.db?authToken=" + tok); !errors.Is(err, store.ErrTokenInURL) {
		t.Errorf("file URL with authToken: %v, want ErrTokenInURL", err)
	}
}

// FuzzURLRedaction: whatever the rest of the URL, a token in its query,
// fragment or user info never appears in ParseTarget's error or display.
func FuzzURLRedaction(f *testing.F) {
	for _, s := range []string{"file:x.db", "http://h:1", "libsql://db", "ws://[::1]:8080/p", "x.db", "http://%zz", "https://h/a;b"} {
		f.Add(s, "tok3n.Secret-value_1")
	}
	f.Fuzz(func(t *testing.T, prefix, tok string) {
		if len(tok) < 8 || strings.Trim(tok, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" {
			return // tokens are JWTs or similar: base64url and dots
		}
		if strings.Contains(":99999999999?authToken=?a=1&jwt=#authToken=/%zz%zz://user:a@", tok) {
			return // the token is part of a form's own text
		}
		if strings.Contains(strconv.Quote(prefix), tok) {
			return // the token is part of the host or path the user typed
		}
		urls := tokenForms(prefix, tok)
		if scheme, rest, ok := strings.Cut(prefix, "://"); ok {
			urls = append(urls, userinfoForms(scheme, rest, tok)...)
		}
		for _, u := range urls {
			tg, err := store.ParseTarget(u)
			if err != nil && strings.Contains(err.Error(), tok) {
				t.Fatalf("ParseTarget(%q): the error shows the token: %v", u, err)
			}
			if err == nil && (strings.Contains(tg.Display, tok) || strings.Contains(tg.URL, tok)) {
				t.Fatalf("ParseTarget(%q) keeps the token: %+v", u, tg)
			}
		}
	})
}

// TestServerEchoOfTheTokenIsScrubbed: a server that echoes the
// Authorization header in its error body does not get the token shown
// (before the fix a 400 or 500 answer passed it through).
func TestServerEchoOfTheTokenIsScrubbed(t *testing.T) {
	const tok = "eyJhbGciOiJFZERTQSJ9.secret123"
	for _, code := range []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusInternalServerError} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(code)
			fmt.Fprintf(w, `{"error":"unexpected header %s (token %s)"}`, r.Header.Get("Authorization"), strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		}))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		s, err := store.Open(ctx, srv.URL, store.Options{AuthToken: tok})
		cancel()
		srv.Close()
		if err == nil {
			s.Close()
			t.Fatalf("%d: Open succeeded", code)
		}
		if strings.Contains(err.Error(), "secret123") {
			t.Errorf("%d: the error shows the token: %v", code, err)
		}
	}
}

// FuzzRedactURL: RedactURL never shows a token placed in a URL's query,
// fragment or user info, whatever surrounds it.
func FuzzRedactURL(f *testing.F) {
	f.Add("http://h:1/p", "tok3n.Secret-value_1", "q")
	f.Add("x", "eyJhbGciOiJFZERTQSJ9", "@")
	f.Fuzz(func(t *testing.T, prefix, tok, suffix string) {
		if len(tok) < 8 || strings.Trim(tok, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" {
			return
		}
		if strings.Contains(prefix, tok) {
			return
		}
		for _, u := range []string{prefix + "?" + tok + suffix, prefix + "#" + tok + suffix, prefix + "?a=" + tok + suffix} {
			if got := store.RedactURL(u); strings.Contains(got, tok) {
				t.Fatalf("RedactURL(%q) = %q shows the token", u, got)
			}
		}
		if scheme, rest, ok := strings.Cut(prefix, "://"); ok && !strings.ContainsAny(rest, "/?#") && !strings.Contains(rest+suffix, tok) {
			u := scheme + "://" + tok + "@" + rest + suffix
			if got := store.RedactURL(u); strings.Contains(got, tok) {
				t.Fatalf("RedactURL(%q) = %q shows the token", u, got)
			}
		}
	})
}

func TestTargetServer(t *testing.T) {
	for _, c := range []struct{ url, want string }{
		{"http://DB.example.test:8080", "db.example.test:8080"},
		{"ws://db.example.test:8080/x", "db.example.test:8080"},
		{"libsql://db.example.test", "db.example.test:443"},
		{"wss://db.example.test", "db.example.test:443"},
		{"https://db.example.test:443", "db.example.test:443"},
		{"http://db.example.test", "db.example.test:80"},
		{"http://[::1]:9", "[::1]:9"},
		{"file:x.db", ""},
	} {
		tg, err := store.ParseTarget(c.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := tg.Server(); got != c.want {
			t.Errorf("Server(%s) = %q, want %q", c.url, got, c.want)
		}
	}
}
