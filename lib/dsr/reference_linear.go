package dsr

import "strconv"

// Record formats of the linear structures' published files (see
// reference_records.go).

var linearRefs = map[string]refTask{
	"array/access":  {"array", "access", &arrayFormat},
	"array/delete":  {"array", "delete", &arrayFormat},
	"array/insert":  {"array", "insert", &arrayFormat},
	"array/reverse": {"array", "reverse", &arrayFormat},
	"array/search":  {"array", "search", &arrayFormat},
}

// arrayFormat: the instance number, "[array]", then "Index: i" and/or
// "Element: v" as the operation needs, then "Answer: x".
var arrayFormat = recordFormat{
	skip: func(l string) bool { _, err := strconv.Atoi(l); return err == nil },
	open: &lineRule{name: "an array", match: listLine, read: func(r *record, v string, _ []string, n int) error {
		return intsInto(func(in *Input) *[]int { return &in.Array })(r, v, n)
	}},
	body: []lineRule{
		intField("Index:", func(in *Input, x int) { in.Index = intp(x) }),
		intField("Element:", func(in *Input, x int) { in.Value = intp(x) }),
	},
	close: truthRule(`"Answer:"`, key("Answer:")),
}

// intField reads "<k> X" (X an integer) with set.
func intField(k string, set func(in *Input, x int)) lineRule {
	return keyed(k, func(r *record, v string, n int) error {
		x, err := atoiAt(r.p, n, v)
		if err != nil {
			return err
		}
		set(&r.in, x)
		return nil
	})
}
