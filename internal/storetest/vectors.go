package storetest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"kvdeck/internal/testskip"
)

// EnvVectors names the environment variable that points at the reference
// vectors folder when it is not ../shared/vectors beside the repository.
const EnvVectors = "KVDECK_VECTORS"

// ErrNoVectors reports that the reference vectors are not in this checkout.
var ErrNoVectors = errors.New("reference vectors not found")

// FindVectors returns the reference vectors folder: $KVDECK_VECTORS when
// set, else ../shared/vectors beside the repository root (the nearest
// directory at or above the working directory holding go.mod). The error
// wraps ErrNoVectors when the folder is absent; a KVDECK_VECTORS that
// names no folder is another error (a broken setting, not a checkout
// without vectors).
func FindVectors() (string, error) {
	if dir := os.Getenv(EnvVectors); dir != "" {
		if !isDir(dir) {
			return "", fmt.Errorf("%s=%s is not a folder", EnvVectors, dir)
		}
		return dir, nil
	}
	root, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for !exists(filepath.Join(root, "go.mod")) {
		parent := filepath.Dir(root)
		if parent == root {
			return "", fmt.Errorf("%w: no go.mod above the working directory", ErrNoVectors)
		}
		root = parent
	}
	dir := filepath.Join(filepath.Dir(root), "shared", "vectors")
	if !isDir(dir) {
		return "", fmt.Errorf("%w at %s (they live in ../shared/vectors beside the repository, or set %s)", ErrNoVectors, dir, EnvVectors)
	}
	return dir, nil
}

// VectorsDir is FindVectors for tests: it skips the test, saying why, when
// the vectors are absent, and fails it on any other error.
func VectorsDir(t testing.TB) string {
	t.Helper()
	dir, err := FindVectors()
	if errors.Is(err, ErrNoVectors) {
		testskip.Skip(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// CopyReference copies public-reference.db of the vectors into
// t.TempDir() and returns the copy's path, so that a test may write to it
// and the original stays byte-identical. It skips like VectorsDir.
func CopyReference(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(VectorsDir(t), "public-reference.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "public-reference.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
