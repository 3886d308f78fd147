package store

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
)

// assign stores v, a value as hrana.Value.Native returns it (nil, int64, float64,
// string or []byte), in dest, as database/sql's Scan would: the answer's
// rows are read by kvdeck's own Hrana clients (hranaread.go), and the
// destinations are those the engine hands database/sql elsewhere. A
// []byte v is the row's own (nothing else refers to it) and is handed
// over without a copy.
func assign(dest, v any) error {
	switch d := dest.(type) {
	case *bytesCol:
		if b, ok := v.([]byte); ok {
			*d = bytesCol{b: b}
			return nil
		}
		return d.Scan(v)
	case *any:
		*d = v
		return nil
	case interface{ Scan(any) error }:
		return d.Scan(v)
	case *int64:
		return assignInt64(d, v)
	case *[]byte:
		switch x := v.(type) {
		case []byte:
			*d = x
		case string:
			*d = []byte(x)
		case nil:
			*d = nil
		default:
			*d = []byte(text(x))
		}
		return nil
	case *string:
		if v == nil {
			return errors.New("converting NULL to string is unsupported")
		}
		*d = text(v)
		return nil
	}
	return assignKind(dest, v)
}

func assignInt64(d *int64, v any) error {
	switch x := v.(type) {
	case int64:
		*d = x
	case float64:
		if x != math.Trunc(x) {
			return fmt.Errorf("%v is not an integer", x)
		}
		*d = int64(x)
	default:
		return assignKind(d, v)
	}
	return nil
}

// text is v as a *string destination gets it.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// assignKind stores v in a pointer to a bool, an integer or a float of
// any size, through its text as database/sql does (a float with a
// fraction is no integer; NULL is none of them), or in a pointer to a
// pointer to any destination (nil for NULL).
func assignKind(dest, v any) error {
	p := reflect.ValueOf(dest)
	if p.Kind() != reflect.Pointer || p.IsNil() {
		return fmt.Errorf("unsupported destination %T", dest)
	}
	if e := p.Elem(); e.Kind() == reflect.Pointer {
		// A pointer: nil for NULL, else a new value scanned as its
		// pointer would be.
		if v == nil {
			e.SetZero()
			return nil
		}
		n := reflect.New(e.Type().Elem())
		if err := assign(n.Interface(), v); err != nil {
			return err
		}
		e.Set(n)
		return nil
	}
	if v == nil {
		return fmt.Errorf("converting NULL to %s is unsupported", p.Elem().Kind())
	}
	e, s := p.Elem(), text(v)
	switch e.Kind() {
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("converting %q to a bool: %w", s, err)
		}
		e.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, e.Type().Bits())
		if err != nil {
			return fmt.Errorf("converting %q to a %s: %w", s, e.Kind(), err)
		}
		e.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(s, 10, e.Type().Bits())
		if err != nil {
			return fmt.Errorf("converting %q to a %s: %w", s, e.Kind(), err)
		}
		e.SetUint(n)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(s, e.Type().Bits())
		if err != nil {
			return fmt.Errorf("converting %q to a %s: %w", s, e.Kind(), err)
		}
		e.SetFloat(f)
	default:
		return fmt.Errorf("unsupported destination %T", dest)
	}
	return nil
}
