package store_test

import (
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestServerErrorsOnOneLine: an error a server answers with a body over
// several lines is one line (issue 25 point 14: sqld's "failed to execute
// SQL:\nerror code 500: ..." printed over two). sqld cannot answer a TEXT
// value that is not UTF-8, which makes such an answer.
func TestServerErrorsOnOneLine(t *testing.T) {
	storetest.Each(t, []storetest.Backend{storetest.SQLD()}, func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s, err := store.Open(storetest.Ctx(t), url, store.Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		storetest.Exec(t, url, `INSERT INTO kv VALUES (x'026200', CAST(x'22ff22' AS TEXT), 3, NULL)`)
		_, _, err = s.Get(storetest.Ctx(t), storetest.Key(t, `["b"]`))
		if err == nil {
			t.Fatal("sqld answered a TEXT value that is not UTF-8; this test needs another multi-line error")
		}
		if strings.ContainsAny(err.Error(), "\n\r") {
			t.Errorf("the error spans lines: %q", err.Error())
		}
	})
}
