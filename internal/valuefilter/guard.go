package valuefilter

import (
	"fmt"
	"math"
	"math/big"
	"reflect"

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
// calls a jq function of the same operands and order of outputs that asks
// _kvdeck_fits whether the result's bytes stay within the budget, and
// fails the evaluation with ErrMemoryLimit where they would not.

// budgetVar is the variable through which an evaluation hands its budget
// to _kvdeck_fits (Match passes it after $key and $versionstamp).
const budgetVar = "$__kvdeck_budget"

// guardDefs are the checked operators. `b as $b | a as $a` keeps the
// operators' order of outputs: the left operand varies fastest.
const guardDefs = `def _kvdeck_mul(a; b): b as $b | a as $a | _kvdeck_fits($a; $b; "*"; ` + budgetVar + `) | $a * $b;
def _kvdeck_add(a; b): b as $b | a as $a | _kvdeck_fits($a; $b; "+"; ` + budgetVar + `) | $a + $b;
def _multiply(a; b): _kvdeck_mul(a; b);
def _add(a; b): _kvdeck_add(a; b);
.`

// guard rewrites q's `*` and `+` into the checked operators and adds
// their definitions to its own.
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
	}
}

// fitsFunction is _kvdeck_fits(a; b; op; budget): its input unchanged
// when a op b makes a value of at most budget bytes, else an error that
// is ErrMemoryLimit.
func fitsFunction() gojq.CompilerOption {
	return gojq.WithFunction("_kvdeck_fits", 4, 4, func(in any, args []any) any {
		op, _ := args[2].(string)
		budget, ok := toInt64(args[3])
		if !ok || budget <= 0 {
			budget = DefaultMemoryLimit
		}
		if size, what := resultSize(op, args[0], args[1]); size > budget {
			return &oneStepError{what: what, size: size, budget: budget}
		}
		return in
	})
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
	switch v := v.(type) {
	case int:
		return 64
	case *big.Int:
		return int64(v.BitLen())
	}
	return 0
}

func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
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

func toInt64(v any) (int64, bool) {
	f, ok := toFloat(v)
	return int64(f), ok && f >= 1 && f < math.MaxInt64
}
