package store_test

import (
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestServerErrorsOnOneLine: an error a server answers with a body over
// several lines is one line (issue 25 point 14: sqld's "failed to execute
// SQL:\nerror code 500: ..." printed over two). sqld cannot answer TEXT
// that is not UTF-8, which makes such an answer: a ver here (kvdeck reads
// a value as a BLOB over a server since issue 25 point 7).
func TestServerErrorsOnOneLine(t *testing.T) {
	storetest.Each(t, []storetest.Backend{storetest.SQLD()}, func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s, err := store.Open(storetest.Ctx(t), url, store.Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		storetest.Exec(t, url, `INSERT INTO kv VALUES (x'026200', 1, CAST(x'ff' AS TEXT), NULL)`)
		_, _, err = s.Get(storetest.Ctx(t), storetest.Key(t, `["b"]`))
		if err == nil {
			t.Fatal("sqld answered a TEXT ver that is not UTF-8; this test needs another multi-line error")
		}
		if strings.ContainsAny(err.Error(), "\n\r") {
			t.Errorf("the error spans lines: %q", err.Error())
		}
	})
}
