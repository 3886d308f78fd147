package atomicjson

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
	"kvdeck/internal/usertext"
)

// Object is a JSON object of user input (an atomic document, a load
// line), read strictly: unknown fields are refused so that a typo
// ("expireAt") cannot silently drop data, and every error names the path of
// the field ("mutations[2].value").
type Object struct {
	path   string
	fields map[string]json.RawMessage
}

// DecodeObject reads raw as a JSON object whose fields are among allowed.
func DecodeObject(raw []byte, path string, allowed ...string) (Object, error) {
	o := Object{path: path}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return o, fmt.Errorf("%s: want a JSON object, found %s", o.Where(), jsonKind(t))
	}
	if err := json.Unmarshal(raw, &o.fields); err != nil {
		return o, fmt.Errorf("%s: %w", o.Where(), describeJSONError(err))
	}
	for name := range o.fields {
		if !slices.Contains(allowed, name) {
			return o, fmt.Errorf("%s: unknown field %q (known: %s)", o.Where(), name, strings.Join(allowed, ", "))
		}
	}
	return o, nil
}

// Where names the object in messages: its path, or "input" for the root.
func (o Object) Where() string {
	if o.path == "" {
		return "input"
	}
	return o.path
}

// Field names one field of the object in messages.
func (o Object) Field(name string) string {
	if o.path == "" {
		return name
	}
	return o.path + "." + name
}

// Len is the number of fields present.
func (o Object) Len() int { return len(o.fields) }

// Has reports whether the field is present (null included).
func (o Object) Has(name string) bool { _, ok := o.fields[name]; return ok }

// IsNull reports whether the field is absent or JSON null.
func (o Object) IsNull(name string) bool {
	raw, ok := o.fields[name]
	return !ok || string(bytes.TrimSpace(raw)) == "null"
}

// Key reads a required key field: key text in a JSON string, or the tagged
// JSON array.
func (o Object) Key(name string) (codec.Key, error) {
	if !o.Has(name) {
		return nil, fmt.Errorf("%s: missing", o.Field(name))
	}
	if o.IsNull(name) {
		return nil, fmt.Errorf("%s: want key text or a tagged JSON array, found null", o.Field(name))
	}
	var k codec.Key
	if err := k.UnmarshalJSON(o.fields[name]); err != nil {
		return nil, fmt.Errorf("%s: %w", o.Field(name), err)
	}
	if _, err := codec.Encode(k); err != nil {
		return nil, fmt.Errorf("%s: %w", o.Field(name), err)
	}
	if k == nil {
		k = codec.Key{}
	}
	return k, nil
}

// Value reads a required JSON value and returns it as the reference
// stores it.
func (o Object) Value(name string) ([]byte, error) {
	if !o.Has(name) {
		return nil, fmt.Errorf("%s: missing (use null for a null value)", o.Field(name))
	}
	v, err := codec.NormalizeJSON(o.fields[name])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Field(name), err)
	}
	return v, nil
}

// Stamp reads a versionstamp field that must be present: null is "" (the
// key must be absent), a string must be a valid 20-digit stamp.
func (o Object) Stamp(name string) (string, error) {
	if !o.Has(name) {
		return "", fmt.Errorf("%s: missing (null means the key must be absent)", o.Field(name))
	}
	if o.IsNull(name) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(o.fields[name], &s); err != nil {
		return "", fmt.Errorf("%s: want a 20-digit string or null, found %s", o.Field(name), jsonKind(o.fields[name]))
	}
	if _, err := codec.ParseStamp(s); err != nil {
		return "", fmt.Errorf("%s: %w", o.Field(name), err)
	}
	return s, nil
}

// Str reads an optional string field ("" when absent or null).
func (o Object) Str(name string) (string, error) {
	if o.IsNull(name) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(o.fields[name], &s); err != nil {
		return "", fmt.Errorf("%s: want a string, found %s", o.Field(name), jsonKind(o.fields[name]))
	}
	return s, nil
}

// Int reads an optional integer field; nil when absent or null.
func (o Object) Int(name string) (*int64, error) {
	if o.IsNull(name) {
		return nil, nil
	}
	n, err := parseInteger(o.fields[name])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Field(name), err)
	}
	return &n, nil
}

// Duration reads an optional time span: a number of milliseconds or a Go
// duration string. nil when absent or null.
func (o Object) Duration(name string) (*time.Duration, error) {
	if o.IsNull(name) {
		return nil, nil
	}
	raw := bytes.TrimSpace(o.fields[name])
	if raw[0] == '"' {
		s, err := o.Str(name)
		if err != nil {
			return nil, err
		}
		d, err := usertext.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", o.Field(name), s, err)
		}
		return &d, nil
	}
	ms, err := parseInteger(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: want milliseconds or a Go duration string: %w", o.Field(name), err)
	}
	if ms > math.MaxInt64/int64(time.Millisecond) || ms < math.MinInt64/int64(time.Millisecond) {
		return nil, fmt.Errorf("%s: %d ms is out of range", o.Field(name), ms)
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

// Array reads an optional array field into its elements.
func (o Object) Array(name string) ([]json.RawMessage, error) {
	if o.IsNull(name) {
		return nil, nil
	}
	var out []json.RawMessage
	if err := json.Unmarshal(o.fields[name], &out); err != nil {
		return nil, fmt.Errorf("%s: want an array, found %s", o.Field(name), jsonKind(o.fields[name]))
	}
	return out, nil
}

// jsonKind names the kind of a JSON text for messages; text that is not
// JSON is named as such, with its start quoted (its first letter alone says
// nothing: "nope" is not null, "truex" not a boolean).
func jsonKind(raw []byte) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	if !json.Valid(t) {
		const show = 24
		if r := []rune(string(t)); len(r) > show {
			return fmt.Sprintf("text that is not JSON: %q…", string(r[:show]))
		}
		return fmt.Sprintf("text that is not JSON: %q", t)
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
