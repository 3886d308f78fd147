package store

import (
	"reflect"
	"testing"
)

// TestAssignConverts: the rows of a server's answer land in every
// destination the engine scans into as database/sql would put them.
func TestAssignConverts(t *testing.T) {
	var (
		i   int
		i64 int64
		ok  bool
		f   float64
		str string
		raw []byte
		col bytesCol
		pi  = new(int64)
		ps  *string
	)
	five, sv := int64(5), "s"
	blob := []byte("ab")
	for _, c := range []struct {
		dest, v, want any
	}{
		{&i, int64(7), 7},
		{&i, "12", 12},
		{&i, float64(3), 3},
		{&i64, float64(3), int64(3)},
		{&i64, []byte("-8"), int64(-8)},
		{&ok, int64(1), true},
		{&ok, int64(0), false},
		{&f, int64(2), 2.0},
		{&str, []byte("xy"), "xy"},
		{&str, int64(-4), "-4"},
		{&raw, "t", []byte("t")},
		{&col, blob, bytesCol{b: blob}},
		{&col, nil, bytesCol{null: true}},
		{&pi, int64(5), &five},
		{&pi, nil, (*int64)(nil)},
		{&ps, []byte("s"), &sv},
	} {
		if err := assign(c.dest, c.v); err != nil {
			t.Errorf("%T from %#v: %v", c.dest, c.v, err)
			continue
		}
		if got := reflect.ValueOf(c.dest).Elem().Interface(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%T from %#v: %#v, want %#v", c.dest, c.v, got, c.want)
		}
	}
	for _, c := range []struct{ dest, v any }{{&i, float64(1.5)}, {&i, nil}, {&ok, int64(2)}, {&i64, "x"}, {&i64, nil}, {&str, nil}, {new(struct{}), int64(1)}} {
		if err := assign(c.dest, c.v); err == nil {
			t.Errorf("%T from %#v: no error", c.dest, c.v)
		}
	}
}
