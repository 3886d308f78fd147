package storeconfig

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
)

// Add saves s under s.Name, replacing a store of that name only when
// replace is set, and writes the file. The text of the file is kept: the
// store is appended as a [stores.NAME] table (a replaced one is first cut
// out), and the result is parsed again and compared with what was meant
// before it is written.
func (c *Config) Add(s Store, replace bool) error {
	if err := CheckName(s.Name); err != nil {
		return err
	}
	if err := check(s.Name, s); err != nil {
		return err
	}
	text := string(c.raw)
	heads := tables(text)
	for name := range c.Stores {
		if !heads[name] {
			// Appending a [stores.NAME] table extends only stores
			// written as tables (TOML forbids adding to an inline
			// table, however lenient a parser is).
			return fmt.Errorf("store %q in %s is not written as a [stores.%s] table, so kvdeck cannot add beside it by lines; edit it by hand", name, c.Path, name)
		}
	}
	if _, ok := c.Stores[s.Name]; ok {
		if !replace {
			return fmt.Errorf("store %q is saved already (kvdeck stores show %s); --replace saves over it", s.Name, s.Name)
		}
		var err error
		if text, err = cut(text, s.Name); err != nil {
			return err
		}
	}
	var body bytes.Buffer
	if err := toml.NewEncoder(&body).Encode(s); err != nil {
		return err
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	text += "[stores." + s.Name + "]\n" + body.String()
	want := maps.Clone(c.Stores)
	want[s.Name] = s
	return c.write(text, want)
}

// Remove deletes the store called name from the file, keeping the rest of
// its text (comments included). Removing the default store is refused.
func (c *Config) Remove(name string) error {
	if _, err := c.Get(name); err != nil {
		return err
	}
	if c.Default == name {
		return fmt.Errorf("store %q is the default (default = %q in %s); change the default first", name, name, c.Path)
	}
	text, err := cut(string(c.raw), name)
	if err != nil {
		return err
	}
	want := maps.Clone(c.Stores)
	delete(want, name)
	return c.write(text, want)
}

// cut removes the [stores.NAME] table from text: its header line through
// the line before the next table header, less the comments and blank
// lines just above that header (they belong to the next table).
func cut(text, name string) (string, error) {
	lines := strings.SplitAfter(text, "\n")
	start, end := -1, len(lines)
	for i, line := range lines {
		key, ok := header(line)
		if !ok {
			continue
		}
		if start >= 0 {
			end = i
			break
		}
		if len(key) == 2 && key[0] == "stores" && key[1] == name {
			start = i
		}
	}
	if start < 0 {
		return "", fmt.Errorf("store %q is not written as a [stores.%s] table; edit the file by hand", name, name)
	}
	for end > start+1 {
		t := strings.TrimSpace(lines[end-1])
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		end--
	}
	return strings.Join(lines[:start], "") + strings.Join(lines[end:], ""), nil
}

// tables are the names of the [stores.NAME] table headers in text.
func tables(text string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.SplitAfter(text, "\n") {
		if key, ok := header(line); ok && len(key) == 2 && key[0] == "stores" {
			out[key[1]] = true
		}
	}
	return out
}

// header parses a table header line ("[stores.dev]", `[ stores."dev" ]`,
// with a trailing comment or not) into its key; arrays of tables and
// other lines are not headers.
func header(line string) ([]string, bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "[") || strings.HasPrefix(t, "[[") {
		return nil, false
	}
	md, err := toml.Decode(t, &map[string]any{})
	if err != nil {
		return nil, false
	}
	keys := md.Keys()
	if len(keys) == 0 {
		return nil, false
	}
	return keys[0], true
}

// write checks that text parses to want (and the same default), then
// replaces the file with it atomically: a temporary file (0600) in the
// same directory (0700 when created), synced, renamed over the old one.
func (c *Config) write(text string, want map[string]Store) error {
	f, err := parse([]byte(text))
	if err != nil {
		return fmt.Errorf("editing %s would leave it invalid (%w); edit it by hand", c.Path, err)
	}
	for name, s := range f.Stores {
		s.Name = name
		f.Stores[name] = s
	}
	if f.Default != c.Default || !reflect.DeepEqual(f.Stores, want) {
		return errors.New("editing " + c.Path + " by its lines would change more than the store (tables written inline or as dotted keys?); edit it by hand")
	}
	dir := filepath.Dir(c.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".config.toml.*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), c.Path); err != nil {
		return err
	}
	c.raw, c.Mode, c.Stores = []byte(text), 0o600, f.Stores
	return nil
}
