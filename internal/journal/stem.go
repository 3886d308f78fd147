package journal

import "strings"

// FileStem is the name a store's files under StateDir share before their
// extension: a readable slug and a hash of the store's identity, so that
// file:x.db and ./x.db, or http:// and ws:// to one sqld, name the same
// files. The journal is FileStem + ".jsonl"; kvdeck record's history of
// the store (internal/history) is FileStem + ".history.db".
func FileStem(storeURL string) (string, error) {
	id, slug, err := storeIdentity(storeURL)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(fileName(id, slug), ".jsonl"), nil
}
