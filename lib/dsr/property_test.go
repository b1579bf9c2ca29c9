package dsr

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Property tests: after random operation sequences every structure keeps
// its invariants, checked against simple models (sorted slices, maps,
// naive partitions) written independently of the implementations.

const propTrials = 300

func propRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

func TestPropertyHeapOrder(t *testing.T) {
	for seed := range uint64(propTrials) {
		r := propRand(seed)
		h := &minHeap[int]{less: intLess}
		var model []int
		for range r.IntN(60) {
			if len(model) == 0 || r.IntN(10) < 7 {
				x := r.IntN(20)
				h.push(x)
				model = append(model, x)
			} else {
				// The root is the minimum.
				if want := slices.Min(model); h.a[0] != want {
					t.Fatalf("seed %d: root %d, minimum %d", seed, h.a[0], want)
				}
				h.pop()
				model = slices.Delete(model, slices.Index(model, slices.Min(model)), slices.Index(model, slices.Min(model))+1)
			}
			checkHeap(t, h.a, intLess, fmt.Sprintf("seed %d", seed))
			if !sameMultiset(h.a, model) {
				t.Fatalf("seed %d: heap %v holds other values than %v", seed, h.a, model)
			}
		}
		a := make([]int, r.IntN(40))
		for i := range a {
			a[i] = r.IntN(30)
		}
		hh := &minHeap[int]{a: slices.Clone(a), less: intLess}
		hh.heapify()
		checkHeap(t, hh.a, intLess, fmt.Sprintf("heapify seed %d", seed))
		if !sameMultiset(hh.a, a) {
			t.Fatalf("heapify changed the values")
		}
	}
}

func checkHeap[T any](t *testing.T, a []T, less func(x, y T) bool, ctx string) {
	t.Helper()
	for i := 1; i < len(a); i++ {
		if less(a[i], a[(i-1)/2]) {
			t.Fatalf("%s: element %d is smaller than its parent", ctx, i)
		}
	}
}

func sameMultiset(a, b []int) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func TestPropertyKDHeapOrder(t *testing.T) {
	for _, m := range []Metric{Euclidean, Lexicographic} {
		for seed := range uint64(propTrials) {
			r := propRand(seed)
			k := 1 + r.IntN(5)
			h := &minHeap[kdItem]{less: kdLess(m)}
			for range r.IntN(40) {
				if len(h.a) == 0 || r.IntN(10) < 7 {
					v := make([]int, k)
					for i := range v {
						v[i] = r.IntN(10)
					}
					h.push(kdItem{r.IntN(100), v})
				} else {
					h.pop()
				}
				checkHeap(t, h.a, kdLess(m), fmt.Sprintf("metric %d seed %d", m, seed))
			}
		}
	}
}

func TestPropertyBSTOrder(t *testing.T) {
	for _, reading := range []Reading{CodeReading, PaperReading} {
		for seed := range uint64(propTrials) {
			r := propRand(seed)
			var root *bstNode
			model := map[int]bool{}
			for range r.IntN(60) {
				x := r.IntN(40)
				if r.IntN(10) < 6 {
					root = bstInsert(root, x)
					model[x] = true
				} else {
					root = bstDelete(root, x, reading)
					delete(model, x)
				}
				in := bstOrder(root, "in")
				var want []int
				for v := range model {
					want = append(want, v)
				}
				slices.Sort(want)
				if !slices.Equal(in, want) && !(len(in) == 0 && len(want) == 0) {
					t.Fatalf("reading %d seed %d: in-order %v, want the sorted set %v", reading, seed, in, want)
				}
				// Rebuilding from the rows gives the same tree.
				if root != nil {
					back, err := bstFromRows(bstRows(root))
					if err != nil || !slices.Equal(bstOrder(back, "pre"), bstOrder(root, "pre")) {
						t.Fatalf("rows round trip failed: %v", err)
					}
				}
			}
		}
	}
}

// checkRB verifies the red-black properties and BST order, returning the
// keys in order.
func checkRB(t *testing.T, tr *rbTree, ctx string) []int {
	t.Helper()
	if tr.root.color != black {
		t.Fatalf("%s: red root", ctx)
	}
	var keys []int
	var walk func(n *rbNode) int
	walk = func(n *rbNode) int {
		if n == tr.nil_ {
			return 1
		}
		if n.color == red && (n.left.color == red || n.right.color == red) {
			t.Fatalf("%s: red node %d has a red child", ctx, n.key)
		}
		if n.left != tr.nil_ && n.left.parent != n || n.right != tr.nil_ && n.right.parent != n {
			t.Fatalf("%s: broken parent pointer at %d", ctx, n.key)
		}
		lh := walk(n.left)
		keys = append(keys, n.key)
		rh := walk(n.right)
		if lh != rh {
			t.Fatalf("%s: black heights %d and %d differ below %d", ctx, lh, rh, n.key)
		}
		if n.color == black {
			return lh + 1
		}
		return lh
	}
	walk(tr.root)
	if !slices.IsSorted(keys) {
		t.Fatalf("%s: keys out of order %v", ctx, keys)
	}
	return keys
}

func TestPropertyRedBlack(t *testing.T) {
	for seed := range uint64(propTrials) {
		r := propRand(seed)
		tr := newRBTree()
		model := map[int]bool{}
		for step := range r.IntN(80) {
			x := r.IntN(50)
			if !model[x] && r.IntN(10) < 6 {
				tr.insert(x)
				model[x] = true
			} else {
				tr.remove(x)
				delete(model, x)
			}
			keys := checkRB(t, tr, fmt.Sprintf("seed %d step %d", seed, step))
			if len(keys) != len(model) {
				t.Fatalf("seed %d: tree holds %d keys, model %d", seed, len(keys), len(model))
			}
		}
	}
}

// checkBPlus verifies balance (all leaves at one depth), sorted nodes,
// routing (every key of child i lies between routing keys i-1 and i), the
// split bound, and, when rebalancing, the minimum occupancy. It returns the
// leaves' keys in order.
func checkBPlus(t *testing.T, tr *bpTree, ctx string) []int {
	t.Helper()
	leafDepth := -1
	var keys []int
	var walk func(n *bpNode, depth int, lo, hi *int)
	walk = func(n *bpNode, depth int, lo, hi *int) {
		if !slices.IsSorted(n.keys) {
			t.Fatalf("%s: unsorted node %v", ctx, n.keys)
		}
		if len(n.keys) >= tr.order {
			t.Fatalf("%s: node %v has %d keys, order %d", ctx, n.keys, len(n.keys), tr.order)
		}
		if tr.rebalance && n != tr.root && len(n.keys) < tr.minKeys() {
			t.Fatalf("%s: node %v below the minimum %d", ctx, n.keys, tr.minKeys())
		}
		for _, k := range n.keys {
			if lo != nil && k < *lo || hi != nil && k > *hi {
				t.Fatalf("%s: key %d outside its routing range", ctx, k)
			}
		}
		if n.leaf {
			if leafDepth < 0 {
				leafDepth = depth
			} else if depth != leafDepth {
				t.Fatalf("%s: leaves at depths %d and %d", ctx, leafDepth, depth)
			}
			keys = append(keys, n.keys...)
			return
		}
		if len(n.children) != len(n.keys)+1 {
			t.Fatalf("%s: internal node %v has %d children", ctx, n.keys, len(n.children))
		}
		for i, c := range n.children {
			clo, chi := lo, hi
			if i > 0 {
				clo = &n.keys[i-1]
			}
			if i < len(n.keys) {
				chi = &n.keys[i]
			}
			walk(c, depth+1, clo, chi)
		}
	}
	walk(tr.root, 0, nil, nil)
	return keys
}

// TestPropertyBPlusBalance runs distinct keys (checked against a set
// model) and, separately, duplicate keys (structure only: a deletion follows
// the routing keys, so a duplicate left of an equal routing key is not
// reached, in both readings).
func TestPropertyBPlusBalance(t *testing.T) {
	for _, dups := range []bool{false, true} {
		for _, rebalance := range []bool{false, true} {
			for _, order := range []int{3, 4, 5, 6, 8} {
				for seed := range uint64(propTrials / 3) {
					bplusTrial(t, dups, rebalance, order, seed)
				}
			}
		}
	}
}

func bplusTrial(t *testing.T, dups, rebalance bool, order int, seed uint64) {
	r := propRand(seed)
	tr, err := newBPTree(order, rebalance)
	if err != nil {
		t.Fatal(err)
	}
	var model []int
	for step := range r.IntN(120) {
		if len(model) == 0 || r.IntN(10) < 6 {
			x := r.IntN(60)
			if !dups && slices.Contains(model, x) {
				continue
			}
			tr.insert(x)
			model = append(model, x)
		} else {
			x := model[r.IntN(len(model))]
			tr.remove(x)
			model = slices.Delete(model, slices.Index(model, x), slices.Index(model, x)+1)
		}
		ctx := fmt.Sprintf("dups=%v rebalance=%v order %d seed %d step %d", dups, rebalance, order, seed, step)
		keys := checkBPlus(t, tr, ctx)
		if !dups && !sameMultiset(keys, model) {
			t.Fatalf("%s: leaves hold %v, model %v", ctx, keys, model)
		}
	}
}

func TestPropertyDSUPartitions(t *testing.T) {
	for seed := range uint64(propTrials) {
		r := propRand(seed)
		n := 1 + r.IntN(40)
		elems := r.Perm(101)[:n]
		in := Input{Array: elems}
		// Naive model: a label per element, relabelled on each union.
		label := map[int]int{}
		for i, e := range elems {
			label[e] = i
		}
		for range r.IntN(40) {
			x, y := elems[r.IntN(n)], elems[r.IntN(n)]
			in.Ops = append(in.Ops, Op{Name: "union", Args: []int{x, y}})
			lx, ly := label[x], label[y]
			for e, l := range label {
				if l == ly {
					label[e] = lx
				}
			}
		}
		v, err := dsuRun(&in, Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		roots, _ := valueInts(v)
		for i, e := range elems {
			if label[roots[i]] != label[e] {
				t.Fatalf("seed %d: representative %d of %d is in another set", seed, roots[i], e)
			}
			for j, f := range elems {
				if (label[e] == label[f]) != (roots[i] == roots[j]) {
					t.Fatalf("seed %d: %d and %d: same set %v, same root %v", seed, e, f, label[e] == label[f], roots[i] == roots[j])
				}
			}
		}
	}
}

// trieWords lists the words stored in a trie and checks that every leaf
// ends a word (deletion pruned the dead branches).
func trieWords(t *testing.T, n *trieNode, prefix string) []string {
	t.Helper()
	var out []string
	if n.end {
		out = append(out, prefix)
	}
	if len(n.children) == 0 && !n.end && prefix != "" {
		t.Fatalf("leaf %q ends no word", prefix)
	}
	for _, k := range n.sortedKeys() {
		out = append(out, trieWords(t, n.children[k], prefix+string(k))...)
	}
	return out
}

func TestPropertyTrieMembership(t *testing.T) {
	for seed := range uint64(propTrials) {
		r := propRand(seed)
		var in Input
		model := map[string]bool{}
		var used []string
		for range r.IntN(40) {
			var w string
			if len(used) > 0 && r.IntN(10) < 4 {
				w = used[r.IntN(len(used))]
			} else {
				b := make([]byte, 1+r.IntN(5))
				for i := range b {
					b[i] = byte('a' + r.IntN(3))
				}
				w = string(b)
				used = append(used, w)
			}
			if r.IntN(10) < 6 {
				in.Ops = append(in.Ops, Op{Name: "insert", Word: w})
				model[w] = true
			} else {
				in.Ops = append(in.Ops, Op{Name: "delete", Word: w})
				delete(model, w)
			}
		}
		root, err := trieBuild(&in, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := trieWords(t, root, "")
		var want []string
		for w := range model {
			want = append(want, w)
		}
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: trie holds %v, model %v", seed, got, want)
		}
		// The DAWG stores the same words, and no two of its nodes are
		// equivalent after minimization.
		checkDAWG(t, root, want)
	}
}

func checkDAWG(t *testing.T, root *trieNode, want []string) {
	t.Helper()
	pairs := dawgValue(root).([]any)
	// Rebuild the words from the prefixes: a prefix marked T is a word
	// only if reached first by that prefix; instead, check that every T
	// prefix is a stored word and that each listed prefix is a prefix of
	// some stored word (or the root).
	stored := map[string]bool{}
	for _, w := range want {
		stored[w] = true
	}
	seen := map[string]bool{}
	for _, p := range pairs {
		pr := p.([]any)
		s, flag := pr[0].(string), pr[1].(string)
		if seen[s] {
			t.Fatalf("prefix %q listed twice", s)
		}
		seen[s] = true
		if flag == "T" && !stored[s] {
			t.Fatalf("prefix %q marked as a word but not stored", s)
		}
		ok := s == ""
		for _, w := range want {
			if strings.HasPrefix(w, s) {
				ok = true
			}
		}
		if !ok {
			t.Fatalf("prefix %q is no prefix of a stored word", s)
		}
	}
}

func TestPropertyKDTreeSplits(t *testing.T) {
	for _, ties := range []Reading{CodeReading, PaperReading} {
		for seed := range uint64(propTrials) {
			r := propRand(seed)
			k := 1 + r.IntN(5)
			pts := make([][]int, 1+r.IntN(40))
			for i := range pts {
				pts[i] = make([]int, k)
				for j := range pts[i] {
					pts[i][j] = r.IntN(8) // many ties
				}
			}
			v, err := kdTreeTask(&Input{Points: pts}, Options{KDTies: ties})
			if err != nil {
				t.Fatal(err)
			}
			pre := v.([]any)
			// Rebuild the tree shape from the pre-order and the sizes: the
			// node at depth d with n points has n/2 points on its left.
			pos := 0
			var check func(n, depth int) [][]int
			check = func(n, depth int) [][]int {
				if n == 0 {
					return nil
				}
				node, _ := valueInts(pre[pos])
				pos++
				m := n / 2
				left := check(m, depth+1)
				right := check(n-m-1, depth+1)
				axis := depth % k
				for _, p := range left {
					if p[axis] > node[axis] {
						t.Fatalf("seed %d: left point %v above node %v on axis %d", seed, p, node, axis)
					}
				}
				for _, p := range right {
					if p[axis] < node[axis] {
						t.Fatalf("seed %d: right point %v below node %v on axis %d", seed, p, node, axis)
					}
				}
				return append(append(append([][]int{}, left...), node), right...)
			}
			all := check(len(pts), 0)
			if len(all) != len(pts) {
				t.Fatalf("seed %d: tree has %d points, input %d", seed, len(all), len(pts))
			}
		}
	}
}

func TestPropertySkipListLevels(t *testing.T) {
	for seed := range uint64(propTrials) {
		r := propRand(seed)
		in := Input{MaxLevel: 1 + r.IntN(6)}
		model := map[int]bool{}
		for range r.IntN(40) {
			x := r.IntN(30)
			if r.IntN(10) < 7 {
				op := Op{Name: "insert", Args: []int{x}}
				for range 1 + r.IntN(6) {
					op.Probs = append(op.Probs, float64(r.IntN(10000))/1e4)
				}
				in.Ops = append(in.Ops, op)
				model[x] = true
			} else {
				in.Ops = append(in.Ops, Op{Name: "delete", Args: []int{x}})
				delete(model, x)
			}
		}
		v, err := skipListRun(&in, Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		levels := v.([]any)
		if len(levels) > in.MaxLevel+1 {
			t.Fatalf("seed %d: %d levels above max level %d", seed, len(levels), in.MaxLevel)
		}
		var below []int
		for i := len(levels) - 1; i >= 0; i-- {
			row, _ := valueInts(levels[i])
			if !slices.IsSorted(row) {
				t.Fatalf("seed %d: level %v unsorted", seed, row)
			}
			if i == len(levels)-1 {
				var want []int
				for x := range model {
					want = append(want, x)
				}
				if !sameMultiset(row, want) {
					t.Fatalf("seed %d: level 0 %v, model %v", seed, row, want)
				}
			} else {
				for _, x := range row {
					if !slices.Contains(below, x) {
						t.Fatalf("seed %d: %d on a level without being on the one below", seed, x)
					}
				}
				if len(row) == 0 {
					t.Fatalf("seed %d: empty upper level listed", seed)
				}
			}
			below = row
		}
	}
}

func TestPropertyHashmapLRUBloom(t *testing.T) {
	for seed := range uint64(propTrials) {
		r := propRand(seed)
		// Hashmap against a map and insertion order.
		b := 1 + r.IntN(12)
		in := Input{Buckets: b}
		model := map[int]int{}
		for range r.IntN(40) {
			k := r.IntN(50)
			if r.IntN(10) < 7 {
				v := r.IntN(100)
				in.Ops = append(in.Ops, Op{Name: "add", Args: []int{k, v}})
				model[k] = v
			} else {
				in.Ops = append(in.Ops, Op{Name: "remove", Args: []int{k}})
				delete(model, k)
			}
		}
		v, _ := hashmapRun(&in, Options{}, nil)
		count := 0
		for i, bucket := range v.([]any) {
			m := bucket.(map[string]any)
			for _, kv := range m["contents"].([]any) {
				e := kv.(map[string]any)
				k, val := e["key"].(int), e["value"].(int)
				if k%b != i || model[k] != val {
					t.Fatalf("seed %d: key %d in bucket %d with value %d, model %d", seed, k, i, val, model[k])
				}
				count++
			}
		}
		if count != len(model) {
			t.Fatalf("seed %d: %d pairs stored, model %d", seed, count, len(model))
		}
		// LRU: the cache holds the last distinct pages accessed, at most
		// its capacity, least recent first.
		c := 1 + r.IntN(6)
		lin := Input{Capacity: c}
		var seq []int
		for range r.IntN(40) {
			p := r.IntN(10)
			seq = append(seq, p)
			lin.Ops = append(lin.Ops, Op{Name: "access", Args: []int{p}})
		}
		var want []int
		for i := len(seq) - 1; i >= 0 && len(want) < c; i-- {
			if !slices.Contains(want, seq[i]) {
				want = append(want, seq[i])
			}
		}
		slices.Reverse(want)
		got, _ := lruRun(&lin, Options{}, nil)
		if g, _ := valueInts(got); !slices.Equal(g, want) && !(len(g) == 0 && len(want) == 0) {
			t.Fatalf("seed %d: LRU %v, want %v", seed, g, want)
		}
		// Bloom filter: with deletes of inserted items only, the counters
		// equal the positions of the remaining multiset.
		m, k := 5+r.IntN(40), 1+r.IntN(4)
		bin := Input{M: m, K: k}
		var bag []int
		for range r.IntN(30) {
			if len(bag) > 0 && r.IntN(10) < 3 {
				i := r.IntN(len(bag))
				bin.Ops = append(bin.Ops, Op{Name: "delete", Args: []int{bag[i]}})
				bag = slices.Delete(bag, i, i+1)
			} else {
				x := r.IntN(101)
				bin.Ops = append(bin.Ops, Op{Name: "insert", Args: []int{x}})
				bag = append(bag, x)
			}
		}
		bv, _ := bloomRun(&bin, Options{}, nil)
		counters, _ := valueInts(bv)
		wantC := make([]int, m)
		for _, x := range bag {
			for i := range k {
				wantC[bloomHash(x, i, m)]++
			}
		}
		if !slices.Equal(counters, wantC) {
			t.Fatalf("seed %d: counters %v, want %v", seed, counters, wantC)
		}
	}
}

// TestBloomHashByHand: hash_i(7) with m = 20: h = ord('7') = 55, so the
// positions for i = 0, 1, 2 are 15, 16, 17; hash_0(87) = (56*131 + 55) mod
// 20 = 7391 mod 20 = 11.
func TestBloomHashByHand(t *testing.T) {
	cases := []struct{ x, i, m, want int }{{7, 0, 20, 15}, {7, 1, 20, 16}, {7, 2, 20, 17}, {87, 0, 20, 11}}
	for _, c := range cases {
		if got := bloomHash(c.x, c.i, c.m); got != c.want {
			t.Errorf("hash_%d(%d) mod %d = %d, want %d", c.i, c.x, c.m, got, c.want)
		}
	}
}

func TestPropertySuffixTree(t *testing.T) {
	for seed := range uint64(propTrials) {
		r := propRand(seed)
		b := make([]byte, 1+r.IntN(15))
		for i := range b {
			b[i] = byte('a' + r.IntN(3))
		}
		w := string(b)
		v, err := suffixTree(&Input{Word: w}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// One leaf edge (ending in '$') per suffix, and '$' only at the end
		// of an edge.
		labels := v.([]any)
		var leaves []string
		for _, l := range labels {
			if s := l.(string); strings.HasSuffix(s, "$") {
				leaves = append(leaves, s)
			}
		}
		if len(leaves) != len(w)+1 {
			t.Fatalf("%q: %d leaves, expected %d (one per suffix)", w, len(leaves), len(w)+1)
		}
		for _, l := range labels {
			s := l.(string)
			if strings.Count(s, "$") > 1 || (strings.Contains(s, "$") && !strings.HasSuffix(s, "$")) {
				t.Fatalf("%q: bad edge label %q", w, s)
			}
		}
	}
}
