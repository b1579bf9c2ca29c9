package dsr

import (
	"fmt"
	"strconv"
	"strings"
)

// Hybrid structures: counting Bloom filter and DAWG.

// bloomHash is hash_i(x): h = 0; for each character c of the decimal text
// of x, h = h*131 + code(c); return (h + i) mod m (computed mod m, which
// gives the same result as the unbounded integer arithmetic).
func bloomHash(x, i, m int) int {
	h := 0
	for _, c := range strconv.Itoa(x) {
		h = (h*131 + int(c)) % m
	}
	return (h + i) % m
}

// bloomRun replays insert/delete on a counting Bloom filter of M counters
// and K hash functions; a delete decrements each of the item's counters
// that is above zero. The answer is the counter array.
func bloomRun(in *Input, _ Options, rec recorder) (any, error) {
	if in.M <= 0 || in.K <= 0 {
		return nil, fmt.Errorf("bloom filter m=%d, k=%d: expected positive sizes", in.M, in.K)
	}
	c := make([]int, in.M)
	for i, op := range in.Ops {
		x := op.arg(0)
		switch op.Name {
		case "insert":
			for h := 0; h < in.K; h++ {
				c[bloomHash(x, h, in.M)]++
			}
		case "delete":
			for h := 0; h < in.K; h++ {
				if j := bloomHash(x, h, in.M); c[j] > 0 {
					c[j]--
				}
			}
		default:
			return nil, opsError(i, op, "insert or delete")
		}
		rec.put(opText(op), func() any { return intsValue(c) })
	}
	return intsValue(c), nil
}

// dawgRun builds the trie of the words left after the inserts and deletes,
// then merges equivalent nodes (same end flag and the same labelled edges
// to equivalent children) and answers the breadth-first traversal from the
// root, edges in ascending character order, each node listed once under the
// prefix by which the traversal first reaches it, with "T" when it ends a
// word and "F" otherwise.
func dawgRun(in *Input, _ Options, rec recorder) (any, error) {
	root, err := trieBuild(in, rec, dawgValue)
	if err != nil {
		return nil, err
	}
	return dawgValue(root), nil
}

func dawgValue(root *trieNode) any {
	// Minimize: one canonical node per signature, bottom-up.
	canon := map[string]*trieNode{}
	ids := map[*trieNode]int{}
	var minimize func(n *trieNode) *trieNode
	minimize = func(n *trieNode) *trieNode {
		var sig strings.Builder
		if n.end {
			sig.WriteByte('T')
		} else {
			sig.WriteByte('F')
		}
		kids := map[byte]*trieNode{}
		for _, k := range n.sortedKeys() {
			c := minimize(n.children[k])
			kids[k] = c
			fmt.Fprintf(&sig, "|%c%d", k, ids[c])
		}
		if c, ok := canon[sig.String()]; ok {
			return c
		}
		m := &trieNode{children: kids, end: n.end}
		ids[m] = len(ids)
		canon[sig.String()] = m
		return m
	}
	r := minimize(root)
	type item struct {
		n      *trieNode
		prefix string
	}
	seen := map[*trieNode]bool{r: true}
	queue := []item{{r, ""}}
	out := []any{}
	for q := 0; q < len(queue); q++ {
		it := queue[q]
		flag := "F"
		if it.n.end {
			flag = "T"
		}
		out = append(out, []any{it.prefix, flag})
		for _, k := range it.n.sortedKeys() {
			c := it.n.children[k]
			if !seen[c] {
				seen[c] = true
				queue = append(queue, item{c, it.prefix + string(k)})
			}
		}
	}
	return out
}
