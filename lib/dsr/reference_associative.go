package dsr

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Record formats of the associative structures' published files (see
// reference_records.go).

var associativeRefs = map[string]refTask{
	"hashmap/compound":      {"hashmap", "compound", &hashmapFormat},
	"trie/compound":         {"trie", "compound", wordOpsFormat("TrieTree ")},
	"suffix_tree/construct": {"suffix_tree", "construct", &suffixFormat},
	"skip_list/compound":    {"skip_list", "compound", &skipListFormat},
}

var (
	hmHeadRe   = regexp.MustCompile(`^HashMap (\d+) with (\d+) buckets$`)
	hmAddRe    = regexp.MustCompile(`^add key (-?\d+) value (-?\d+)$`)
	skipHeadRe = regexp.MustCompile(`^SkipList (\d+) \(Max Level: (\d+)\)$`)
)

// hashmapFormat: "HashMap i with b buckets", "add key k value v" /
// "remove k" lines, then "Final HashMap: [[(k, v), …], …]".
var hashmapFormat = recordFormat{
	open:  header("HashMap ", hmHeadRe, func(in *Input, xs []int) { in.Buckets = xs[1] }),
	body:  []lineRule{opInts(hmAddRe, "add"), opInt("remove ", "remove")},
	close: truthRule(`"Final HashMap:"`, key("Final HashMap:")),
	truth: hashmapFromBuckets,
}

// hashmapFromBuckets converts the reference's [[(k, v), …], …] truth to the
// answer shape.
func hashmapFromBuckets(v any) (any, error) {
	bs, ok := v.([]any)
	if !ok {
		return nil, errors.New("expected a list of buckets")
	}
	out := make([]any, len(bs))
	for i, b := range bs {
		pairs, ok := b.([]any)
		if !ok {
			return nil, fmt.Errorf("bucket %d: expected a list", i)
		}
		contents := make([]any, len(pairs))
		for j, pr := range pairs {
			kv, ok := pr.([]any)
			if !ok || len(kv) != 2 {
				return nil, fmt.Errorf("bucket %d item %d: expected a (key, value) pair", i, j)
			}
			contents[j] = map[string]any{"key": kv[0], "value": kv[1]}
		}
		out[i] = map[string]any{"number": i, "contents": contents}
	}
	return out, nil
}

// wordOpsFormat: a header starting with head ("TrieTree i", "DAWG i"),
// "insert w" / "delete w" lines, then the final word list "[…]".
func wordOpsFormat(head string) *recordFormat {
	return &recordFormat{
		open:  header(head, nil, nil),
		body:  []lineRule{opWord("insert ", "insert"), opWord("delete ", "delete")},
		close: truthRule("the final state", listLine),
	}
}

// suffixFormat: "SuffixTree i", the word ending in "$", then the
// suffixes "[…]".
var suffixFormat = recordFormat{
	open: header("SuffixTree ", nil, nil),
	body: []lineRule{{name: `a word ending in "$"`,
		match: func(l string) (string, []string, bool) { return l, nil, strings.HasSuffix(l, "$") },
		read: func(r *record, v string, _ []string, n int) error {
			if r.in.Word != "" {
				return r.p.errAt(n, "a second word %q", v)
			}
			r.in.Word = strings.TrimSuffix(v, "$")
			return nil
		}}},
	close: truthRule("the final state", listLine),
}

// skipListFormat: "SkipList i (Max Level: m)", "insert X" / "delete X"
// lines, each insert followed by "Level generation probabilities: p, …"
// (its promotion draws), then the levels "[…]".
var skipListFormat = recordFormat{
	open: header("SkipList ", skipHeadRe, func(in *Input, xs []int) { in.MaxLevel = xs[1] }),
	body: append([]lineRule{keyed("Level generation probabilities:", func(r *record, v string, n int) error {
		ops := r.in.Ops
		if len(ops) == 0 || ops[len(ops)-1].Name != "insert" {
			return r.p.errAt(n, "promotion draws not after an insert")
		}
		var ps []float64
		for _, s := range strings.Split(v, ",") {
			f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return r.p.errAt(n, "bad promotion draw %q", s)
			}
			ps = append(ps, f)
		}
		ops[len(ops)-1].Probs = ps
		return nil
	})}, insertDelete...),
	close: truthRule("the final state", listLine),
}
