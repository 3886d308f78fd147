package store_test

import (
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestServerErrorsOnOneLine: an error a server answers with a body over
// several lines is one line (sqld's "failed to execute
// SQL:\nerror code 500: ..." printed over two). A statement the server
// refuses makes such an answer: the store's table dropped under it. (This
// test used a TEXT ver that is not UTF-8, which sqld could not answer;
// kvdeck now reads one: TestInvalidUTF8VerAndExpiry.)
func TestServerErrorsOnOneLine(t *testing.T) {
	storetest.Each(t, []storetest.Backend{storetest.SQLD()}, func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s, err := store.Open(storetest.Ctx(t), url, store.Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		storetest.Exec(t, url, `DROP TABLE kv`)
		_, _, err = s.Get(storetest.Ctx(t), storetest.Key(t, `["b"]`))
		if err == nil {
			t.Fatal("a read of a dropped table succeeded; this test needs another server error")
		}
		if strings.ContainsAny(err.Error(), "\n\r") {
			t.Errorf("the error spans lines: %q", err.Error())
		}
	})
}
