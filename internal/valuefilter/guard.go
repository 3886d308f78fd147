package valuefilter

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"

	"github.com/itchyny/gojq"
)

// One step past the budget.
//
// The memory watcher (memory.go) samples the heap while an evaluation
// runs, so it stops growth made of many allocations; one allocation it
// sees only once made: `"x" * 2e9` built a 1.9 GB string in one
// strings.Repeat under a 512 MiB budget. The operators that build one
// value of any size in one step, `*` (a string repeated, big integers
// multiplied) and `+` (strings, arrays or objects joined), are checked
// before they run: the expression is rewritten so that each `a * b` and
// `a + b` (and `*=`, `+=`, whose desugaring calls _multiply and _add)
// calls a Go function of the same operands, evaluated in the same order
// (the left one varies fastest), that fails the evaluation with
// ErrMemoryLimit where the result's bytes would pass the budget. Numbers
// and joined strings it computes itself, as gojq does, so a call costs
// about what the operator did; anything else, once checked, goes to
// gojq's own operator.

// guardDefs send `*=` and `+=` (desugared by gojq into calls of
// _multiply and _add, which definitions of the expression's own shadow)
// to the checked functions.
const guardDefs = `def _multiply(a; b): _kvdeck_mul(a; b); def _add(a; b): _kvdeck_add(a; b); .`

// guard rewrites q's `*` and `+` into the checked functions and adds
// guardDefs to its definitions.
func guard(q *gojq.Query) error {
	defs, err := gojq.Parse(guardDefs)
	if err != nil {
		return err
	}
	rewrite(reflect.ValueOf(q))
	q.FuncDefs = append(defs.FuncDefs, q.FuncDefs...)
	return nil
}

// checkedOps are the operators rewritten, by the function that checks them.
var checkedOps = map[gojq.Operator]string{gojq.OpMul: "_kvdeck_mul", gojq.OpAdd: "_kvdeck_add"}

// rewrite walks the parsed expression (every field of every node, so no
// kind of node is missed) and turns each `l * r` and `l + r` into a call
// of its checked function, children first.
func rewrite(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			rewrite(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			rewrite(v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				rewrite(v.Field(i))
			}
		}
		if !v.CanAddr() {
			return
		}
		if q, ok := v.Addr().Interface().(*gojq.Query); ok {
			if name, checked := checkedOps[q.Op]; checked && q.Left != nil && q.Right != nil {
				*q = gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeFunc, Func: &gojq.Func{Name: name, Args: []*gojq.Query{q.Left, q.Right}}}}
			}
		}
	default: // numbers, strings, maps, ...: no query inside
	}
}

// arith is the Go side of the checked operators for one Matcher: budget
// reads its memory limit at each call; mul and add are gojq's own
// operators (`.[0] * .[1]`, `.[0] + .[1]`) for what arith does not
// compute itself.
type arith struct {
	budget   func() int64
	mul, add *gojq.Code
}

// newArith compiles the fallback operators.
func newArith(budget func() int64) (*arith, error) {
	a := &arith{budget: budget}
	for code, src := range map[**gojq.Code]string{&a.mul: ".[0] * .[1]", &a.add: ".[0] + .[1]"} {
		q, err := gojq.Parse(src)
		if err != nil {
			return nil, err
		}
		if *code, err = gojq.Compile(q); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// options are the compiler options that define the checked functions.
func (a *arith) options() []gojq.CompilerOption {
	return []gojq.CompilerOption{
		gojq.WithFunction("_kvdeck_mul", 2, 2, func(_ any, args []any) any { return a.apply("*", args[0], args[1]) }),
		gojq.WithFunction("_kvdeck_add", 2, 2, func(_ any, args []any) any { return a.apply("+", args[0], args[1]) }),
	}
}

// apply is l op r: numbers (int, float64, or a json.Number that reads as
// one, as gojq reads it), null and, for +, strings computed here as
// gojq's operator computes them; anything else refused when its result
// would pass the budget, else handed to gojq's operator.
func (a *arith) apply(op string, l, r any) any {
	if v, ok := fastArith(op, number(l), number(r)); ok {
		return v
	}
	if size, what := resultSize(op, l, r); size > a.budget() {
		return &oneStepError{what: what, size: size, budget: a.budget()}
	}
	if ls, ok := l.(string); ok && op == "+" {
		if rs, ok := r.(string); ok {
			return ls + rs
		}
	}
	code := a.mul
	if op == "+" {
		code = a.add
	}
	v, _ := code.Run([]any{l, r}).Next()
	return v
}

// number is v as gojq reads a json.Number that is an int or a float64
// (gojq's parseNumber); v itself otherwise.
func number(v any) any {
	n, ok := v.(json.Number)
	if !ok {
		return v
	}
	if i, err := n.Int64(); err == nil && math.MinInt <= i && i <= math.MaxInt {
		return int(i)
	}
	if strings.ContainsAny(n.String(), ".eE") {
		if f, err := n.Float64(); err == nil {
			return f
		}
	}
	return v
}

// fastArith computes l op r for ints (without overflow, where gojq turns
// to big integers, and without * -1, which gojq negates), floats and
// null + a number or null, as gojq does; ok false for anything else.
func fastArith(op string, l, r any) (v any, ok bool) {
	if op == "+" {
		switch {
		case l == nil:
			return r, r == nil || isNumber(r)
		case r == nil:
			return l, isNumber(l)
		}
	}
	switch l := l.(type) {
	case int:
		switch r := r.(type) {
		case int:
			if op == "+" {
				if v := l + r; (v >= l) == (r >= 0) {
					return v, true
				}
			} else if r != -1 {
				if v := l * r; r == 0 || v/r == l {
					return v, true
				}
			}
			return nil, false
		case float64:
			return floatArith(op, float64(l), r), true
		}
	case float64:
		switch r := r.(type) {
		case int:
			return floatArith(op, l, float64(r)), true
		case float64:
			return floatArith(op, l, r), true
		}
	}
	return nil, false
}

func floatArith(op string, l, r float64) float64 {
	if op == "+" {
		return l + r
	}
	return l * r
}

func isNumber(v any) bool {
	switch v.(type) {
	case int, float64:
		return true
	}
	return false
}

// oneStepError is an operation refused for the size of its result.
type oneStepError struct {
	what         string
	size, budget int64
}

func (e *oneStepError) Error() string {
	return fmt.Sprintf("%v (%s of %d MiB in one step; more than %d MiB; stopped)", ErrMemoryLimit, e.what, e.size>>20, e.budget>>20)
}

func (e *oneStepError) Is(target error) bool { return target == ErrMemoryLimit }

// anySize is what one element of an array or a map entry costs at the
// least (an interface value; a map entry's key and bucket share more).
const anySize = 16

// resultSize is the bytes of l op r's result where it can be large, and
// what it is; 0 where it is small or op fails anyway.
func resultSize(op string, l, r any) (int64, string) {
	switch op {
	case "*":
		if s, ok := l.(string); ok {
			return repeatSize(s, r), "a string"
		}
		if s, ok := r.(string); ok {
			return repeatSize(s, l), "a string"
		}
		if bl, br := bits(l), bits(r); bl > 64 || br > 64 {
			return (bl + br) / 8, "a number"
		}
	case "+":
		switch l := l.(type) {
		case string:
			if r, ok := r.(string); ok {
				return int64(len(l)) + int64(len(r)), "a string"
			}
		case []any:
			if r, ok := r.([]any); ok {
				return (int64(len(l)) + int64(len(r))) * anySize, "an array"
			}
		case map[string]any:
			if r, ok := r.(map[string]any); ok {
				return (int64(len(l)) + int64(len(r))) * 4 * anySize, "an object"
			}
		}
	}
	return 0, ""
}

// repeatSize is the length of s repeated n times (jq's string * number);
// 0 when n is not a positive number.
func repeatSize(s string, n any) int64 {
	f, ok := toFloat(n)
	if !ok || !(f > 0) {
		return 0
	}
	return int64(float64(len(s)) * math.Min(f, math.MaxInt32))
}

// bits is the size in bits of an integer value, 0 for anything else.
func bits(v any) int64 {
	switch v := number(v).(type) {
	case json.Number:
		return int64(len(v))*10/3 + 1 // decimal digits to bits, rounded up
	case int:
		return 64
	case *big.Int:
		return int64(v.BitLen())
	}
	return 0
}

func toFloat(v any) (float64, bool) {
	switch v := number(v).(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case int:
		return float64(v), true
	case float64:
		return v, true
	case *big.Int:
		f, _ := new(big.Float).SetInt(v).Float64()
		return f, true
	}
	return 0, false
}
