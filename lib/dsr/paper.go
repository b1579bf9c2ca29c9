package dsr

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/narlab/narlab/internal/pyval"
)

// Paper scoring: the semantics of the reference's evaluation scripts
// (github.com/dransyhe/DSR-Bench, evaluation/<structure>/<operation>.py and
// natural/<task>/evaluation.py), reproduced step by step on Python values
// (internal/pyval). Each script reads the response with a strict
// json.loads (no code fences, no prose), takes its "final_answer", and
// compares it with the instance's truth as the script holds it — mostly a
// line of the published file, i.e. Python's str() of a list — by string
// equality of str(answer) (or of the answer printed without spaces,
// list_to_str, for the BST and K-D tree tasks), and scores partial credit
// as 1 − Levenshtein distance / longer length over the same strings (over
// list items for the realistic queue). Where the script would raise (a
// missing final_answer outside its try block, int() of a word, len() of
// null), the whole reference run stops; narlab records the exception in
// Verdict.Raised and lets the lenient reading decide that response.

// paperScorers maps a task to its script's comparison.
var paperScorers = map[string]func(resp string, truth any) (binary, partial float64, err error){
	"array/access":               scoreIntCompare(true),
	"array/search":               scoreIntCompare(false),
	"array/delete":               scoreStrEq(lookupInTry, nil),
	"array/insert":               scoreStrEq(lookupInTry, nil),
	"array/reverse":              scoreStrEq(lookupInTry, nil),
	"stack/compound":             scoreStrEq(lookupInTry, nil),
	"queue/compound":             scoreStrEq(lookupInTry, nil),
	"priority_queue/compound":    scoreStrEq(lookupInTry, nil),
	"heap/compound":              scoreStrEq(lookupInTry, nil),
	"heap/heapify":               scoreStrEq(lookupInTry, nil),
	"graph/bfs":                  scoreStrEq(lookupInTry, nil),
	"graph/dfs":                  scoreStrEq(lookupInTry, nil),
	"rb_tree/construct":          scoreStrEq(lookupInTry, nil),
	"rb_tree/compound":           scoreStrEq(lookupInTry, nil),
	"rb_tree/construct_compound": scoreStrEq(lookupInTry, nil),
	"geom_graph/construct":       scoreStrEq(lookupInTry, nil),
	"dsu/compound":               scoreStrEq(lookupGet, nil),
	"b_plus_tree/compound":       scoreStrEq(lookupOutside, nil),
	"bloom_filter/compound":      scoreStrEq(lookupOutside, nil),
	"trie/compound":              scoreStrEq(lookupOutside, nil),
	"suffix_tree/construct":      scoreStrEq(lookupOutside, nil),
	"skip_list/compound":         scoreStrEq(lookupOutside, nil),
	"dawg/compound":              scoreStrEq(lookupOutside, func(s string) string { return strings.ReplaceAll(s, `"`, "'") }),
	"lru_cache/cache":            scoreLRU,
	"hashmap/compound":           scoreHashmap,
	"bst/preorder":               scoreNoSpaces(false),
	"bst/inorder":                scoreNoSpaces(false),
	"bst/postorder":              scoreNoSpaces(false),
	"bst/depth":                  scoreNoSpaces(false),
	"bst/compound":               scoreNoSpaces(false),
	"kd_tree/construct":          scoreNoSpaces(true),
	"kd_heap/compound":           scoreKDHeap,
	"bst/insert":                 scorePrePost,
	"bst/remove":                 scorePrePost,
	"queue/realistic":            scoreNamesQueue,
	"bst/realistic":              scoreAppointments,
	"graph/realistic":            scorePlanets,
}

// scorePaper scores a response as the reference's script for the task
// does. A non-nil error is the exception the script would raise.
func scorePaper(t *Task, truth any, resp string) (binary, partial float64, err error) {
	f, ok := paperScorers[t.Name()]
	if !ok {
		return 0, 0, fmt.Errorf("dsr: %s: no reference scorer", t.Name())
	}
	return f(resp, truth)
}

// pyTruth converts a canonical value to the Python value the reference
// holds: ints, floats (a float stays a float: 33.0), strings, lists.
func pyTruth(v any) pyval.Value {
	switch x := v.(type) {
	case int:
		return pyval.NewInt(int64(x))
	case float64:
		return pyval.Float(x)
	case string:
		return pyval.NewStr(x)
	case []any:
		out := make(pyval.List, len(x))
		for i, it := range x {
			out[i] = pyTruth(it)
		}
		return out
	case map[string]any:
		d := &pyval.Dict{}
		for k, it := range x {
			d.Keys = append(d.Keys, pyval.NewStr(k))
			d.Vals = append(d.Vals, pyTruth(it))
		}
		return d
	}
	return pyval.None
}

// truthString is str() of the truth as the script holds it.
func truthString(truth any) string { return pyval.PyStr(pyTruth(truth)) }

// noSpaces is the reference's list_to_str: str(x).replace(" ", "").
func noSpaces(v pyval.Value) string { return strings.ReplaceAll(pyval.PyStr(v), " ", "") }

// partialOf is 1 − levenshtein(a, b) of the reference's utils: the edit
// distance over code points divided by the longer length (0 when both are
// empty, so the partial score is 1).
func partialOf(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	return 1 - normLev(ra, rb, func(x, y rune) bool { return x == y })
}

// normLev is the reference's levenshtein(a, b, normalise=True) over two
// sequences compared item by item.
func normLev[T any](a, b []T, same func(x, y T) bool) float64 {
	m, n := len(a), len(b)
	if m == 0 || n == 0 {
		if max(m, n) == 0 {
			return 0
		}
		return float64(m+n) / float64(max(m, n))
	}
	prev := make([]int, n+1)
	cur := make([]int, n+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= m; i++ {
		cur[0] = i
		for j := 1; j <= n; j++ {
			cost := 1
			if same(a[i-1], b[j-1]) {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return float64(prev[n]) / float64(max(m, n))
}

// How a script reads final_answer: inside its try block (a failure scores
// 0), with dict.get inside it (a missing key gives None), or after it (a
// missing key raises).
type lookup int

const (
	lookupInTry lookup = iota
	lookupGet
	lookupOutside
)

// finalAnswer runs json.loads and the final_answer lookup; ok is false when
// the script scores the response 0 in its except branch; err is an
// exception the script would not catch.
func finalAnswer(resp string, how lookup) (ans pyval.Value, ok bool, err error) {
	js, jerr := pyval.JSONLoads(resp)
	if jerr != nil {
		return nil, false, nil
	}
	switch how {
	case lookupGet:
		d, isDict := js.(*pyval.Dict)
		if !isDict {
			return nil, false, nil // AttributeError: no .get
		}
		if v, found := d.Get(pyval.NewStr("final_answer")); found {
			return v, true, nil
		}
		return pyval.None, true, nil
	case lookupOutside:
		v, err := pyval.GetItem(js, pyval.NewStr("final_answer"))
		if err != nil {
			return nil, false, err
		}
		return v, true, nil
	}
	v, err := pyval.GetItem(js, pyval.NewStr("final_answer"))
	if err != nil {
		return nil, false, nil
	}
	return v, true, nil
}

// scoreStrEq: str(answer) == str(truth), partial over the same strings
// (after fix, e.g. DAWG's quote replacement).
func scoreStrEq(how lookup, fix func(string) string) func(string, any) (float64, float64, error) {
	return func(resp string, truth any) (float64, float64, error) {
		ans, ok, err := finalAnswer(resp, how)
		if err != nil || !ok {
			return 0, 0, err
		}
		a, t := pyval.PyStr(ans), truthString(truth)
		if fix != nil {
			a = fix(a)
		}
		return b2f(a == t), partialOf(a, t), nil
	}
}

// scoreIntCompare: int(answer) == int(truth); partial over
// str(int(answer)) (access) or str(answer) (search).
func scoreIntCompare(partialOfInt bool) func(string, any) (float64, float64, error) {
	return func(resp string, truth any) (float64, float64, error) {
		ans, ok, _ := finalAnswer(resp, lookupInTry)
		if !ok {
			return 0, 0, nil
		}
		ai, err := pyval.ToInt(ans)
		if err != nil {
			return 0, 0, err
		}
		t := pyTruth(truth)
		ti, _ := pyval.ToInt(t)
		bin := b2f(ai.V.Cmp(ti.V) == 0)
		if partialOfInt {
			return bin, partialOf(ai.V.String(), ti.V.String()), nil
		}
		return bin, partialOf(pyval.PyStr(ans), pyval.PyStr(t)), nil
	}
}

// scoreNoSpaces: list_to_str(answer) == list_to_str(truth) (a failed read
// is ""), partial over the same strings; strip trims both first (K-D tree).
func scoreNoSpaces(strip bool) func(string, any) (float64, float64, error) {
	return func(resp string, truth any) (float64, float64, error) {
		ans, ok, _ := finalAnswer(resp, lookupInTry)
		if !ok {
			ans = pyval.NewStr("")
		}
		a, t := noSpaces(ans), noSpaces(pyTruth(truth))
		if strip {
			a, t = string(pyval.Strip([]rune(a))), string(pyval.Strip([]rune(t)))
		}
		return b2f(a == t), partialOf(a, t), nil
	}
}

// scoreKDHeap: equality without spaces, partial with them.
func scoreKDHeap(resp string, truth any) (float64, float64, error) {
	ans, ok, _ := finalAnswer(resp, lookupInTry)
	if !ok {
		return 0, 0, nil
	}
	t := pyTruth(truth)
	return b2f(noSpaces(ans) == noSpaces(t)), partialOf(pyval.PyStr(ans), pyval.PyStr(t)), nil
}

// scorePrePost: final_answer["pre_order"] and ["post_order"] (each "" when
// missing) both equal without spaces; partial is the mean of the two.
func scorePrePost(resp string, truth any) (float64, float64, error) {
	pre, post := pyval.Value(pyval.NewStr("")), pyval.Value(pyval.NewStr(""))
	if js, err := pyval.JSONLoads(resp); err == nil {
		fa, ferr := pyval.GetItem(js, pyval.NewStr("final_answer"))
		if ferr == nil {
			if v, err := pyval.GetItem(fa, pyval.NewStr("pre_order")); err == nil {
				pre = v
			}
			if v, err := pyval.GetItem(fa, pyval.NewStr("post_order")); err == nil {
				post = v
			}
		}
	}
	m, _ := truth.(map[string]any)
	tp, tq := noSpaces(pyTruth(m["pre_order"])), noSpaces(pyTruth(m["post_order"]))
	a, b := noSpaces(pre), noSpaces(post)
	return b2f(a == tp && b == tq), (partialOf(a, tp) + partialOf(b, tq)) / 2, nil
}

// scoreLRU: set(str_to_int_list(answer)) == set(str_to_int_list(truth));
// the partial score compares the answer with itself, so it is 1.
func scoreLRU(resp string, truth any) (float64, float64, error) {
	ans, ok, _ := finalAnswer(resp, lookupInTry)
	if !ok {
		return 0, 0, nil
	}
	a, err := strToIntList(ans)
	if err != nil {
		return 0, 0, err
	}
	t, err := strToIntList(pyval.NewStr(truthString(truth)))
	if err != nil {
		return 0, 0, err
	}
	return b2f(sameIntSet(a, t)), 1, nil
}

// strToIntList is the reference's str_to_int_list.
func strToIntList(v pyval.Value) ([]*big.Int, error) {
	var items []pyval.Value
	switch x := v.(type) {
	case pyval.List:
		items = x
	case pyval.Str:
		s := strings.NewReplacer(" ", "", "[", "", "]", "").Replace(x.String())
		for _, p := range strings.Split(s, ",") {
			items = append(items, pyval.NewStr(p))
		}
	default:
		return nil, pyval.Raise("AttributeError", "'%s' object has no attribute 'replace'", v.TypeName())
	}
	out := make([]*big.Int, len(items))
	for i, it := range items {
		n, err := pyval.ToInt(it)
		if err != nil {
			return nil, err
		}
		out[i] = n.V
	}
	return out, nil
}

func sameIntSet(a, b []*big.Int) bool {
	in := func(x *big.Int, s []*big.Int) bool {
		for _, y := range s {
			if x.Cmp(y) == 0 {
				return true
			}
		}
		return false
	}
	for _, x := range a {
		if !in(x, b) {
			return false
		}
	}
	for _, x := range b {
		if !in(x, a) {
			return false
		}
	}
	return true
}

// scoreHashmap: answer_to_hashmap (buckets sorted by "number", contents as
// (key, value) tuples; any failure scores 0) == the truth's buckets.
func scoreHashmap(resp string, truth any) (float64, float64, error) {
	ans, err := answerToHashmap(resp)
	if err != nil {
		return 0, 0, nil
	}
	t := hashmapTruth(truth)
	return b2f(pyval.Equal(ans, t)), partialOf(pyval.PyStr(ans), pyval.PyStr(t)), nil
}

func answerToHashmap(resp string) (pyval.Value, error) {
	js, err := pyval.JSONLoads(resp)
	if err != nil {
		return nil, err
	}
	fa, err := pyval.GetItem(js, pyval.NewStr("final_answer"))
	if err != nil {
		return nil, err
	}
	buckets, err := pyval.Iterate(fa)
	if err != nil {
		return nil, err
	}
	keys := make([]pyval.Value, len(buckets))
	for i, b := range buckets {
		if keys[i], err = pyval.GetItem(b, pyval.NewStr("number")); err != nil {
			return nil, err
		}
	}
	order, err := pyval.SortedIndex(keys)
	if err != nil {
		return nil, err
	}
	out := pyval.List{}
	for _, i := range order {
		contents, err := pyval.GetItem(buckets[i], pyval.NewStr("contents"))
		if err != nil {
			return nil, err
		}
		pairs, err := pyval.Iterate(contents)
		if err != nil {
			return nil, err
		}
		tl := pyval.List{}
		for _, p := range pairs {
			k, err := pyval.GetItem(p, pyval.NewStr("key"))
			if err != nil {
				return nil, err
			}
			v, err := pyval.GetItem(p, pyval.NewStr("value"))
			if err != nil {
				return nil, err
			}
			tl = append(tl, pyval.Tuple{k, v})
		}
		out = append(out, tl)
	}
	return out, nil
}

// hashmapTruth is the published "Final HashMap" line as the script reads
// it: a list of buckets, each a list of (key, value) tuples.
func hashmapTruth(truth any) pyval.Value {
	out := pyval.List{}
	for _, b := range hashmapCanonical(truth).([]any) {
		tl := pyval.List{}
		items, _ := b.([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			tl = append(tl, pyval.Tuple{pyTruth(m["key"]), pyTruth(m["value"])})
		}
		out = append(out, tl)
	}
	return out
}

// scoreNamesQueue: answer == truth; partial is the edit distance over list
// items (names), len() of the answer raising for non-sequences.
func scoreNamesQueue(resp string, truth any) (float64, float64, error) {
	ans, ok, _ := finalAnswer(resp, lookupInTry)
	if !ok {
		return 0, 0, nil
	}
	t := pyTruth(truth).(pyval.List)
	p, err := seqPartial(ans, t)
	if err != nil {
		return 0, 0, err
	}
	return b2f(pyval.Equal(ans, t)), p, nil
}

// seqPartial is 1 − levenshtein(a, b) for a Python sequence a (its len()
// and a[i] as the script takes them) and a list b.
func seqPartial(a pyval.Value, b pyval.List) (float64, error) {
	m, err := pyval.Len(a)
	if err != nil {
		return 0, err
	}
	if m == 0 || len(b) == 0 {
		return 1 - normLev(make([]pyval.Value, m), b, pyval.Equal), nil
	}
	items := make([]pyval.Value, m)
	for i := range items {
		v, err := pyval.GetItem(a, pyval.NewInt(int64(i)))
		if err != nil {
			return 0, err
		}
		items[i] = v
	}
	return 1 - normLev(items, []pyval.Value(b), pyval.Equal), nil
}

// scoreAppointments: [tuple(x) for x in answer] == the truth's tuples.
func scoreAppointments(resp string, truth any) (float64, float64, error) {
	ans, ok, _ := finalAnswer(resp, lookupInTry)
	if !ok {
		return 0, 0, nil
	}
	items, err := pyval.Iterate(ans)
	if err != nil {
		return 0, 0, err
	}
	al := pyval.List{}
	for _, x := range items {
		xs, err := pyval.Iterate(x)
		if err != nil {
			return 0, 0, err
		}
		al = append(al, pyval.Tuple(xs))
	}
	tl := pyval.List{}
	for _, p := range pyTruth(truth).(pyval.List) {
		tl = append(tl, pyval.Tuple(p.(pyval.List)))
	}
	return b2f(pyval.Equal(tl, al)), partialOf(pyval.PyStr(al), pyval.PyStr(tl)), nil
}

// scorePlanets: a list answer as is, anything else through
// ast.literal_eval (raising for non-strings and non-literals).
func scorePlanets(resp string, truth any) (float64, float64, error) {
	ans, ok, _ := finalAnswer(resp, lookupInTry)
	if !ok {
		return 0, 0, nil
	}
	if _, isList := ans.(pyval.List); !isList {
		v, err := pyval.LiteralEvalValue(ans)
		if err != nil {
			return 0, 0, err
		}
		ans = v
	}
	t := pyTruth(truth)
	return b2f(pyval.Equal(ans, t)), partialOf(pyval.PyStr(ans), pyval.PyStr(t)), nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
