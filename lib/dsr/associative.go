package dsr

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Associative structures: hashmap, trie, suffix tree and skip list.

// hashmapRun replays add/remove on a chained hashmap of in.Buckets buckets
// with bucket = key mod buckets. Adding an existing key updates its value in
// place; chains keep insertion order; removing an absent key does nothing.
// The answer lists every bucket: [{number, contents: [{key, value}]}].
func hashmapRun(in *Input, _ Options, rec recorder) (any, error) {
	if in.Buckets <= 0 {
		return nil, fmt.Errorf("bucket count %d: expected a positive number", in.Buckets)
	}
	b := make([][][2]int, in.Buckets)
	bucket := func(k int) int { return ((k % in.Buckets) + in.Buckets) % in.Buckets }
	for i, op := range in.Ops {
		switch op.Name {
		case "add":
			k, v := op.arg(0), op.arg(1)
			c := b[bucket(k)]
			found := false
			for j := range c {
				if c[j][0] == k {
					c[j][1] = v
					found = true
					break
				}
			}
			if !found {
				b[bucket(k)] = append(c, [2]int{k, v})
			}
		case "remove":
			k := op.arg(0)
			c := b[bucket(k)]
			for j := range c {
				if c[j][0] == k {
					b[bucket(k)] = append(c[:j:j], c[j+1:]...)
					break
				}
			}
		default:
			return nil, opsError(i, op, "add or remove")
		}
		rec.put(opText(op), func() any { return hashmapValue(b) })
	}
	return hashmapValue(b), nil
}

func hashmapValue(b [][][2]int) any {
	out := make([]any, len(b))
	for i, c := range b {
		contents := make([]any, len(c))
		for j, kv := range c {
			contents[j] = map[string]any{"key": kv[0], "value": kv[1]}
		}
		out[i] = map[string]any{"number": i, "contents": contents}
	}
	return out
}

// hashmapCanonical orders a hashmap answer by bucket number and keeps the
// contents, as the reference does before comparing.
func hashmapCanonical(v any) any {
	xs, ok := v.([]any)
	if !ok {
		return v
	}
	type bk struct {
		n int
		c any
	}
	var bs []bk
	for _, x := range xs {
		m, _ := x.(map[string]any)
		n, _ := m["number"].(int)
		bs = append(bs, bk{n, m["contents"]})
	}
	sort.SliceStable(bs, func(i, j int) bool { return bs[i].n < bs[j].n })
	out := make([]any, len(bs))
	for i, b := range bs {
		out[i] = b.c
	}
	return out
}

// trieNode is a node of a trie (also the uncompressed DAWG).
type trieNode struct {
	children map[byte]*trieNode
	end      bool
}

func newTrieNode() *trieNode { return &trieNode{children: map[byte]*trieNode{}} }

func (t *trieNode) insert(w string) {
	n := t
	for i := 0; i < len(w); i++ {
		c := n.children[w[i]]
		if c == nil {
			c = newTrieNode()
			n.children[w[i]] = c
		}
		n = c
	}
	n.end = true
}

// remove unmarks the word's end and prunes the nodes left without children
// and not ending a word, bottom-up. An absent word changes nothing.
func (t *trieNode) remove(w string) {
	path := []*trieNode{t}
	n := t
	for i := 0; i < len(w); i++ {
		n = n.children[w[i]]
		if n == nil {
			return
		}
		path = append(path, n)
	}
	if !n.end {
		return
	}
	n.end = false
	for i := len(w); i > 0; i-- {
		node := path[i]
		if node.end || len(node.children) > 0 {
			break
		}
		delete(path[i-1].children, w[i-1])
	}
}

func (t *trieNode) sortedKeys() []byte {
	ks := make([]byte, 0, len(t.children))
	for k := range t.children {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func trieBuild(in *Input, rec recorder, state func(*trieNode) any) (*trieNode, error) {
	root := newTrieNode()
	for i, op := range in.Ops {
		switch op.Name {
		case "insert":
			root.insert(op.Word)
		case "delete":
			root.remove(op.Word)
		default:
			return nil, opsError(i, op, "insert or delete")
		}
		if state != nil {
			rec.put(opText(op), func() any { return state(root) })
		}
	}
	return root, nil
}

// trieRun answers the pre-order traversal of the trie's characters, root
// (the empty string) first and children in alphabetical order.
func trieRun(in *Input, _ Options, rec recorder) (any, error) {
	root, err := trieBuild(in, rec, triePreorder)
	if err != nil {
		return nil, err
	}
	return triePreorder(root), nil
}

func triePreorder(root *trieNode) any {
	out := []any{""}
	var walk func(n *trieNode)
	walk = func(n *trieNode) {
		for _, k := range n.sortedKeys() {
			out = append(out, string(k))
			walk(n.children[k])
		}
	}
	walk(root)
	return out
}

// suffixTree answers the pre-order edge labels of the compressed suffix
// tree of word+"$", children in lexicographic order with "$" first.
func suffixTree(in *Input, _ Options) (any, error) {
	w := in.Word
	if strings.Contains(w, "$") {
		w = strings.TrimSuffix(w, "$")
		if strings.Contains(w, "$") {
			return nil, fmt.Errorf("word %q: expected no '$' inside the word", in.Word)
		}
	}
	w += "$"
	root := newTrieNode()
	for i := range w {
		root.insert(w[i:])
	}
	out := []any{}
	var walk func(n *trieNode)
	walk = func(n *trieNode) {
		for _, k := range n.sortedKeys() { // '$' sorts before letters
			label := []byte{k}
			c := n.children[k]
			for len(c.children) == 1 && !c.end {
				for k2, c2 := range c.children {
					label = append(label, k2)
					c = c2
				}
			}
			out = append(out, string(label))
			walk(c)
		}
	}
	walk(root)
	return out, nil
}

// skipListRun replays insert/delete on a skip list of levels 0..MaxLevel.
// An insert of a new value starts at level 0 and is promoted once for each
// recorded draw below 0.5, stopping at the first draw of 0.5 or more or at
// MaxLevel. Inserting a present value or deleting an absent one does
// nothing. The answer lists the levels from the highest non-empty one down
// to level 0, each in ascending order; level 0 is listed even when the list
// is empty ([[]]), as the reference prints it.
func skipListRun(in *Input, _ Options, rec recorder) (any, error) {
	if in.MaxLevel < 0 {
		return nil, fmt.Errorf("max level %d: expected a non-negative level", in.MaxLevel)
	}
	levels := map[int]int{} // value → top level
	for i, op := range in.Ops {
		v := op.arg(0)
		switch op.Name {
		case "insert":
			if _, ok := levels[v]; ok {
				break
			}
			lvl := 0
			for _, p := range op.Probs {
				if p < 0.5 && lvl < in.MaxLevel {
					lvl++
				} else {
					break
				}
			}
			levels[v] = lvl
		case "delete":
			delete(levels, v)
		default:
			return nil, opsError(i, op, "insert or delete")
		}
		rec.put(opText(op), func() any { return skipListValue(levels) })
	}
	return skipListValue(levels), nil
}

func skipListValue(levels map[int]int) any {
	top := 0
	for _, l := range levels {
		top = max(top, l)
	}
	out := []any{}
	for l := top; l >= 0; l-- {
		var row []int
		for v, t := range levels {
			if t >= l {
				row = append(row, v)
			}
		}
		slices.Sort(row)
		out = append(out, intsValue(row))
	}
	return out
}
