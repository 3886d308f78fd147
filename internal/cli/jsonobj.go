package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"kvdeck/codec"
)

// object is a JSON object of user input (an atomic document, a load
// line), read strictly: unknown fields are refused so that a typo
// ("expireAt") cannot silently drop data, and every error names the path of
// the field ("mutations[2].value").
type object struct {
	path   string
	fields map[string]json.RawMessage
}

// decodeObject reads raw as a JSON object whose fields are among allowed.
func decodeObject(raw []byte, path string, allowed ...string) (object, error) {
	o := object{path: path}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return o, fmt.Errorf("%s: want a JSON object, found %s", o.where(), jsonKind(t))
	}
	if err := json.Unmarshal(raw, &o.fields); err != nil {
		return o, fmt.Errorf("%s: %w", o.where(), describeJSONError(err))
	}
	for name := range o.fields {
		if !slices.Contains(allowed, name) {
			return o, fmt.Errorf("%s: unknown field %q (known: %s)", o.where(), name, strings.Join(allowed, ", "))
		}
	}
	return o, nil
}

// where names the object in messages: its path, or "input" for the root.
func (o object) where() string {
	if o.path == "" {
		return "input"
	}
	return o.path
}

// field names one field of the object in messages.
func (o object) field(name string) string {
	if o.path == "" {
		return name
	}
	return o.path + "." + name
}

// has reports whether the field is present (null included).
func (o object) has(name string) bool { _, ok := o.fields[name]; return ok }

// isNull reports whether the field is absent or JSON null.
func (o object) isNull(name string) bool {
	raw, ok := o.fields[name]
	return !ok || string(bytes.TrimSpace(raw)) == "null"
}

// key reads a required key field: key text in a JSON string, or the tagged
// JSON array.
func (o object) key(name string) (codec.Key, error) {
	if !o.has(name) {
		return nil, fmt.Errorf("%s: missing", o.field(name))
	}
	if o.isNull(name) {
		return nil, fmt.Errorf("%s: want key text or a tagged JSON array, found null", o.field(name))
	}
	var k codec.Key
	if err := k.UnmarshalJSON(o.fields[name]); err != nil {
		return nil, fmt.Errorf("%s: %w", o.field(name), err)
	}
	if _, err := codec.Encode(k); err != nil {
		return nil, fmt.Errorf("%s: %w", o.field(name), err)
	}
	if k == nil {
		k = codec.Key{}
	}
	return k, nil
}

// value reads a required JSON value and returns it as the reference
// stores it.
func (o object) value(name string) ([]byte, error) {
	if !o.has(name) {
		return nil, fmt.Errorf("%s: missing (use null for a null value)", o.field(name))
	}
	return ParseValue(o.field(name), o.fields[name])
}

// stamp reads a versionstamp field that must be present: null is "" (the
// key must be absent), a string must be a valid 20-digit stamp.
func (o object) stamp(name string) (string, error) {
	if !o.has(name) {
		return "", fmt.Errorf("%s: missing (null means the key must be absent)", o.field(name))
	}
	if o.isNull(name) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(o.fields[name], &s); err != nil {
		return "", fmt.Errorf("%s: want a 20-digit string or null, found %s", o.field(name), jsonKind(o.fields[name]))
	}
	if _, err := codec.ParseStamp(s); err != nil {
		return "", fmt.Errorf("%s: %w", o.field(name), err)
	}
	return s, nil
}

// str reads an optional string field ("" when absent or null).
func (o object) str(name string) (string, error) {
	if o.isNull(name) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(o.fields[name], &s); err != nil {
		return "", fmt.Errorf("%s: want a string, found %s", o.field(name), jsonKind(o.fields[name]))
	}
	return s, nil
}

// int reads an optional integer field; nil when absent or null.
func (o object) int(name string) (*int64, error) {
	if o.isNull(name) {
		return nil, nil
	}
	n, err := parseInteger(o.fields[name])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.field(name), err)
	}
	return &n, nil
}

// duration reads an optional time span: a number of milliseconds or a Go
// duration string. nil when absent or null.
func (o object) duration(name string) (*time.Duration, error) {
	if o.isNull(name) {
		return nil, nil
	}
	raw := bytes.TrimSpace(o.fields[name])
	if raw[0] == '"' {
		s, err := o.str(name)
		if err != nil {
			return nil, err
		}
		d, err := ParseExpireIn(o.field(name), s)
		return &d, err
	}
	ms, err := parseInteger(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: want milliseconds or a Go duration string: %w", o.field(name), err)
	}
	if ms > math.MaxInt64/int64(time.Millisecond) || ms < math.MinInt64/int64(time.Millisecond) {
		return nil, fmt.Errorf("%s: %d ms is out of range", o.field(name), ms)
	}
	d := time.Duration(ms) * time.Millisecond
	return &d, nil
}

// parseInteger reads a JSON number that must be an integer in int64 range
// (1e3 and 1000.0 are accepted).
func parseInteger(raw []byte) (int64, error) {
	var num json.Number
	if err := json.Unmarshal(raw, &num); err != nil {
		return 0, fmt.Errorf("want an integer, found %s", jsonKind(raw))
	}
	if n, err := strconv.ParseInt(num.String(), 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(num.String(), 64)
	if err != nil || f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, fmt.Errorf("want an integer, found %s", num)
	}
	return int64(f), nil
}

// array reads an optional array field into its elements.
func (o object) array(name string) ([]json.RawMessage, error) {
	if o.isNull(name) {
		return nil, nil
	}
	var out []json.RawMessage
	if err := json.Unmarshal(o.fields[name], &out); err != nil {
		return nil, fmt.Errorf("%s: want an array, found %s", o.field(name), jsonKind(o.fields[name]))
	}
	return out, nil
}

// jsonKind names the kind of a JSON text for messages.
func jsonKind(raw []byte) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	if t[0] == '-' || t[0] >= '0' && t[0] <= '9' {
		return "a number"
	}
	return "text that is not JSON"
}

// describeJSONError turns encoding/json's errors into a message with the
// byte offset.
func describeJSONError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %s", se.Offset, se.Error())
	}
	return err
}
