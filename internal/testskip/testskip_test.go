package testskip_test

import (
	"os"
	"path/filepath"
	"testing"

	"kvdeck/internal/deptest"
	"kvdeck/internal/testskip"
)

func TestNoteAppendsOneLinePerSkip(t *testing.T) {
	log := filepath.Join(t.TempDir(), "skips")
	t.Setenv(testskip.EnvLog, log)
	testskip.Note("TestA/sqld", "sqld binary\nnot found")
	testskip.Note("TestB", "vectors\tabsent")
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	want := "sqld binary not found\tTestA/sqld\nvectors absent\tTestB\n"
	if string(b) != want {
		t.Fatalf("log %q, want %q", b, want)
	}
	t.Run("skipped", func(t *testing.T) {
		testskip.Skip(t, "shown at the end")
		t.Fatal("Skip returned")
	})
	if b, _ = os.ReadFile(log); string(b) != want+"shown at the end\tTestNoteAppendsOneLinePerSkip/skipped\n" {
		t.Fatalf("log after Skip %q", b)
	}
}

func TestUnsetLogNotesNothing(t *testing.T) {
	t.Setenv(testskip.EnvLog, "")
	testskip.Note("TestA", "nothing to write to") // must not panic or create a file
}

func TestDeps(t *testing.T) {
	deptest.StdlibOnly(t, "kvdeck/internal/testskip")
}
