package dsr

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Instance generators. Each draws one instance's inputs for a length level
// from the seeded source, following the reference generators' distributions
// (paper §3.4 and the notes): ints uniform in [0, 100], strings of uniform
// lowercase letters, 0.7 insert-like vs 0.3 delete-like steps (0.5 vs 0.5
// for the priority queue), and the per-level sizes below.

// variant is the spatial variant of an instance: dimension and (K-D tree)
// point distribution.
type variant struct {
	dim  int
	dist string
}

func (v variant) dimOr(d int) int {
	if v.dim > 0 {
		return v.dim
	}
	return d
}

func length(r *rng, l Level) int {
	lo, hi := l.Range()
	return r.between(lo, hi)
}

func value(r *rng) int { return r.between(0, 100) }

func randomArray(r *rng, n int) []int {
	a := make([]int, n)
	for i := range a {
		a[i] = value(r)
	}
	return a
}

func genArrayAccess(r *rng, l Level, _ variant) (Input, error) {
	a := randomArray(r, length(r, l))
	return Input{Array: a, Index: intp(r.intn(len(a)))}, nil
}

func genArrayDelete(r *rng, l Level, _ variant) (Input, error) {
	a := randomArray(r, length(r, l))
	return Input{Array: a, Value: intp(pick(r, a))}, nil
}

func genArrayInsert(r *rng, l Level, _ variant) (Input, error) {
	a := randomArray(r, length(r, l))
	return Input{Array: a, Index: intp(r.between(0, len(a))), Value: intp(value(r))}, nil
}

func genArrayReverse(r *rng, l Level, _ variant) (Input, error) {
	return Input{Array: randomArray(r, length(r, l))}, nil
}

func genArraySearch(r *rng, l Level, _ variant) (Input, error) {
	a := randomArray(r, length(r, l))
	return Input{Array: a, Value: intp(pick(r, a))}, nil
}

// pushPop draws a push/pop sequence: push with probability 0.7, or always
// when the structure is empty.
func pushPop(r *rng, l Level, push, pop string) []Op {
	var ops []Op
	size := 0
	for range length(r, l) {
		if size == 0 || r.chance(0.7) {
			ops = append(ops, Op{Name: push, Args: []int{value(r)}})
			size++
		} else {
			ops = append(ops, Op{Name: pop})
			size--
		}
	}
	return ops
}

func genStack(r *rng, l Level, _ variant) (Input, error) {
	return Input{Ops: pushPop(r, l, "push", "pop")}, nil
}

func genQueue(r *rng, l Level, _ variant) (Input, error) {
	return Input{Ops: pushPop(r, l, "enqueue", "dequeue")}, nil
}

// genLRU: cache size 2–5 / 3–7 / 4–10 and pages 0–9 / 0–19 / 0–29.
func genLRU(r *rng, l Level, _ variant) (Input, error) {
	c := pick3(l, [2]int{2, 5}, [2]int{3, 7}, [2]int{4, 10})
	pages := pick3(l, 10, 20, 30)
	in := Input{Capacity: r.between(c[0], c[1])}
	for range length(r, l) {
		in.Ops = append(in.Ops, Op{Name: "access", Args: []int{r.intn(pages)}})
	}
	return in, nil
}

// genPQ: distinct values from a shuffled pool of 0–100; each step inserts,
// or with probability 0.5 (when not empty) deletes, raises a key by 1–50
// (at most 100) or decreases it by 1–50 (at least 0), uniformly.
func genPQ(r *rng, l Level, _ variant) (Input, error) {
	pool := r.sample(0, 100, 101)
	prio := map[int]int{}
	var present []int
	var in Input
	for range length(r, l) {
		if len(present) > 0 && r.chance(0.5) {
			switch r.intn(3) {
			case 0:
				best := 0
				for i, v := range present {
					b := present[best]
					if prio[v] > prio[b] || (prio[v] == prio[b] && v > b) {
						best = i
					}
				}
				delete(prio, present[best])
				present = slices.Delete(present, best, best+1)
				in.Ops = append(in.Ops, Op{Name: "delete"})
			case 1:
				v := pick(r, present)
				prio[v] = min(100, prio[v]+r.between(1, 50))
				in.Ops = append(in.Ops, Op{Name: "raise_key", Args: []int{v, prio[v]}})
			default:
				v := pick(r, present)
				prio[v] = max(0, prio[v]-r.between(1, 50))
				in.Ops = append(in.Ops, Op{Name: "decrease_key", Args: []int{v, prio[v]}})
			}
			continue
		}
		if len(pool) == 0 {
			break
		}
		v := pool[0]
		pool = pool[1:]
		prio[v] = value(r)
		present = append(present, v)
		in.Ops = append(in.Ops, Op{Name: "insert", Args: []int{v, prio[v]}})
	}
	return in, nil
}

// genHashmap: 10 / 20 / 30 buckets; add with probability 0.7 (always when
// empty); a remove names a key ever added, so it may be absent.
func genHashmap(r *rng, l Level, _ variant) (Input, error) {
	in := Input{Buckets: pick3(l, 10, 20, 30)}
	present := map[int]bool{}
	var added []int
	for range length(r, l) {
		if len(present) == 0 || r.chance(0.7) {
			k := value(r)
			in.Ops = append(in.Ops, Op{Name: "add", Args: []int{k, value(r)}})
			present[k] = true
			if !slices.Contains(added, k) {
				added = append(added, k)
			}
		} else {
			k := pick(r, added)
			in.Ops = append(in.Ops, Op{Name: "remove", Args: []int{k}})
			delete(present, k)
		}
	}
	return in, nil
}

// sharedWord draws a word of length n that shares a prefix with a word
// already used (prefix length uniform in [minPrefix, len(base)]).
func sharedWord(r *rng, used []string, n, minPrefix int) string {
	if len(used) == 0 {
		return r.letters(n)
	}
	base := pick(r, used)
	p := r.between(min(minPrefix, len(base)), len(base))
	if p > n {
		p = n
	}
	return base[:p] + r.letters(n-p)
}

// wordOps draws insert/delete steps over words sharing prefixes: delete a
// present word with probability 0.3, else insert a new word.
func wordOps(r *rng, l Level, lo, hi, minPrefix int) []Op {
	var ops []Op
	var used, present []string
	for range length(r, l) {
		if len(present) > 0 && r.chance(0.3) {
			i := r.intn(len(present))
			ops = append(ops, Op{Name: "delete", Word: present[i]})
			present = slices.Delete(present, i, i+1)
			continue
		}
		w := sharedWord(r, used, r.between(lo, hi), minPrefix)
		ops = append(ops, Op{Name: "insert", Word: w})
		used = append(used, w)
		if !slices.Contains(present, w) {
			present = append(present, w)
		}
	}
	return ops
}

// genTrie: words of 8–12 / 18–22 / 28–32 letters.
func genTrie(r *rng, l Level, _ variant) (Input, error) {
	w := pick3(l, [2]int{8, 12}, [2]int{18, 22}, [2]int{28, 32})
	return Input{Ops: wordOps(r, l, w[0], w[1], 0)}, nil
}

// genDAWG: words of 3–6 / 5–10 / 8–15 letters sharing at least one letter
// with an earlier word.
func genDAWG(r *rng, l Level, _ variant) (Input, error) {
	w := pick3(l, [2]int{3, 6}, [2]int{5, 10}, [2]int{8, 15})
	return Input{Ops: wordOps(r, l, w[0], w[1], 1)}, nil
}

func genSuffix(r *rng, l Level, _ variant) (Input, error) {
	return Input{Word: r.letters(length(r, l))}, nil
}

// genSkipList: max level 3 / 5 / 7; each new insert records its promotion
// draws (4 decimals), drawn until one is at least 0.5 or the top level is
// reached.
func genSkipList(r *rng, l Level, _ variant) (Input, error) {
	in := Input{MaxLevel: pick3(l, 3, 5, 7)}
	var present []int
	for range length(r, l) {
		if len(present) > 0 && r.chance(0.3) {
			i := r.intn(len(present))
			in.Ops = append(in.Ops, Op{Name: "delete", Args: []int{present[i]}})
			present = slices.Delete(present, i, i+1)
			continue
		}
		v := value(r)
		op := Op{Name: "insert", Args: []int{v}}
		if !slices.Contains(present, v) {
			lvl := 0
			for {
				p := math.Round(r.float()*1e4) / 1e4
				op.Probs = append(op.Probs, p)
				if p < 0.5 && lvl < in.MaxLevel {
					lvl++
				} else {
					break
				}
			}
			present = append(present, v)
		}
		in.Ops = append(in.Ops, op)
	}
	return in, nil
}

// randomBST inserts n distinct values of 0–100 in random order.
func randomBST(r *rng, n int) (*bstNode, []int) {
	vals := r.sample(0, 100, n)
	var root *bstNode
	for _, v := range vals {
		root = bstInsert(root, v)
	}
	return root, vals
}

func genBSTTree(r *rng, l Level, _ variant) (Input, error) {
	root, _ := randomBST(r, length(r, l))
	return Input{Tree: bstRows(root)}, nil
}

func genBSTInsert(r *rng, l Level, _ variant) (Input, error) {
	root, vals := randomBST(r, length(r, l))
	v := value(r)
	for slices.Contains(vals, v) {
		v = value(r)
	}
	return Input{Tree: bstRows(root), Value: intp(v)}, nil
}

func genBSTRemove(r *rng, l Level, _ variant) (Input, error) {
	root, vals := randomBST(r, length(r, l))
	return Input{Tree: bstRows(root), Value: intp(pick(r, vals))}, nil
}

// distinctOps draws insert/delete steps over distinct values: insert a new
// value with probability 0.7 (always when empty), else delete a present one.
func distinctOps(r *rng, l Level, present []int) []Op {
	var ops []Op
	present = slices.Clone(present)
	for range length(r, l) {
		if len(present) == 0 || r.chance(0.7) {
			v := value(r)
			for slices.Contains(present, v) {
				v = value(r)
			}
			present = append(present, v)
			ops = append(ops, Op{Name: "insert", Args: []int{v}})
		} else {
			i := r.intn(len(present))
			ops = append(ops, Op{Name: "delete", Args: []int{present[i]}})
			present = slices.Delete(present, i, i+1)
		}
	}
	return ops
}

func genBSTCompound(r *rng, l Level, _ variant) (Input, error) {
	return Input{Ops: distinctOps(r, l, nil)}, nil
}

func genHeap(r *rng, l Level, _ variant) (Input, error) {
	var in Input
	size := 0
	for range length(r, l) {
		if size == 0 || r.chance(0.7) {
			in.Ops = append(in.Ops, Op{Name: "insert", Args: []int{value(r)}})
			size++
		} else {
			in.Ops = append(in.Ops, Op{Name: "delete"})
			size--
		}
	}
	return in, nil
}

func genHeapify(r *rng, l Level, _ variant) (Input, error) {
	return Input{Array: randomArray(r, length(r, l))}, nil
}

func genRBConstruct(r *rng, l Level, _ variant) (Input, error) {
	return Input{Array: r.sample(0, 100, length(r, l))}, nil
}

func genRBCompound(r *rng, l Level, _ variant) (Input, error) {
	return Input{Ops: distinctOps(r, l, nil)}, nil
}

// genRBConstructCompound: an initial tree of 5–10 values, then insert/delete
// steps.
func genRBConstructCompound(r *rng, l Level, _ variant) (Input, error) {
	t := newRBTree()
	vals := r.sample(0, 100, r.between(5, 10))
	for _, v := range vals {
		t.insert(v)
	}
	var rows []TreeNode
	var walk func(n *rbNode)
	walk = func(n *rbNode) {
		if n == t.nil_ {
			return
		}
		row := TreeNode{Value: n.key, Color: "r"}
		if n.color == black {
			row.Color = "b"
		}
		if n.left != t.nil_ {
			row.Left = intp(n.left.key)
		}
		if n.right != t.nil_ {
			row.Right = intp(n.right.key)
		}
		rows = append(rows, row)
		walk(n.left)
		walk(n.right)
	}
	walk(t.root)
	return Input{Tree: rows, Ops: distinctOps(r, l, vals)}, nil
}

// genBPlus: order 4 / 6 / 8; insert (duplicates allowed) with probability
// 0.7, else delete a present key.
func genBPlus(r *rng, l Level, _ variant) (Input, error) {
	in := Input{Order: pick3(l, 4, 6, 8)}
	var present []int
	for range length(r, l) {
		if len(present) == 0 || r.chance(0.7) {
			v := value(r)
			present = append(present, v)
			in.Ops = append(in.Ops, Op{Name: "insert", Args: []int{v}})
		} else {
			i := r.intn(len(present))
			in.Ops = append(in.Ops, Op{Name: "delete", Args: []int{present[i]}})
			present = slices.Delete(present, i, i+1)
		}
	}
	return in, nil
}

// Distributions of the K-D tree spatial probe.
const (
	DistUniform = "uniform"
	DistCircle  = "circle"
	DistMoon    = "moon"
	DistBlob    = "blob"
)

// Distributions lists the K-D tree point distributions.
func Distributions() []string { return []string{DistUniform, DistCircle, DistMoon, DistBlob} }

// genKDTree: points with integer coordinates; uniform in [0, 100]^k, or a
// 2-D circles / moons / blobs layout (see points2D).
func genKDTree(r *rng, l Level, v variant) (Input, error) {
	n := length(r, l)
	k := v.dimOr(2)
	switch v.dist {
	case "", DistUniform:
		pts := make([][]int, n)
		for i := range pts {
			pts[i] = randomArray(r, k)
		}
		return Input{Points: pts}, nil
	case DistCircle, DistMoon, DistBlob:
		if k != 2 {
			return Input{}, fmt.Errorf("distribution %s is two-dimensional, not %d-dimensional", v.dist, k)
		}
		return Input{Points: points2D(r, v.dist, n)}, nil
	}
	return Input{}, fmt.Errorf("unknown distribution %q (expected one of %s)", v.dist, strings.Join(Distributions(), ", "))
}

// points2D draws n points shaped like scikit-learn's make_circles (two
// concentric circles, inner radius half the outer), make_moons (two
// interleaved half circles) or make_blobs (three Gaussian clusters), with
// Gaussian noise, scaled to about [0, 100] and rounded to integers; a few
// points fall just outside the square, as in the published data.
func points2D(r *rng, dist string, n int) [][]int {
	pts := make([][]int, n)
	var centers [][2]float64
	if dist == DistBlob {
		for range 3 {
			centers = append(centers, [2]float64{15 + 70*r.float(), 15 + 70*r.float()})
		}
	}
	for i := range pts {
		var x, y float64
		switch dist {
		case DistCircle:
			t := 2 * math.Pi * r.float()
			rad := 50.0
			if r.chance(0.5) {
				rad = 25
			}
			x, y = 50+rad*math.Cos(t)+2*r.normal(), 50+rad*math.Sin(t)+2*r.normal()
		case DistMoon:
			t := math.Pi * r.float()
			if r.chance(0.5) {
				x, y = 25+50*math.Cos(t), 40+50*math.Sin(t)
			} else {
				x, y = 75-50*math.Cos(t), 60-50*math.Sin(t)
			}
			x, y = x+2*r.normal(), y+2*r.normal()
		default:
			c := pick(r, centers)
			x, y = c[0]+8*r.normal(), c[1]+8*r.normal()
		}
		pts[i] = []int{int(math.Round(x)), int(math.Round(y))}
	}
	return pts
}

// genKDHeap: labels and priority coordinates in [0, 100]; insert with
// probability 0.7 (always when empty), else delete the minimum.
func genKDHeap(r *rng, l Level, v variant) (Input, error) {
	in := Input{Dim: v.dimOr(2)}
	size := 0
	for range length(r, l) {
		if size == 0 || r.chance(0.7) {
			in.Ops = append(in.Ops, Op{Name: "insert", Args: []int{value(r)}, Vec: randomArray(r, in.Dim)})
			size++
		} else {
			in.Ops = append(in.Ops, Op{Name: "delete"})
			size--
		}
	}
	return in, nil
}

// genGraph: n distinct node labels in [0, 100], each pair linked with
// probability 0.3 (the published graphs' density), a random source.
func genGraph(r *rng, l Level, _ variant) (Input, error) {
	nodes := r.sample(0, 100, length(r, l))
	var edges [][2]int
	for i := range nodes {
		for j := i + 1; j < len(nodes); j++ {
			if r.chance(0.3) {
				edges = append(edges, [2]int{nodes[i], nodes[j]})
			}
		}
	}
	return Input{Nodes: nodes, Edges: edges, Source: intp(pick(r, nodes))}, nil
}

// genDSU: 10–19 / 20–39 / 40–59 distinct elements and between n/2 and
// 10 / 20 / 30 unions of uniformly drawn elements (self-unions included).
func genDSU(r *rng, l Level, _ variant) (Input, error) {
	nr := pick3(l, [2]int{10, 19}, [2]int{20, 39}, [2]int{40, 59})
	n := r.between(nr[0], nr[1])
	elems := r.sample(0, 100, n)
	in := Input{Array: elems}
	for range r.between(n/2, pick3(l, 10, 20, 30)) {
		in.Ops = append(in.Ops, Op{Name: "union", Args: []int{pick(r, elems), pick(r, elems)}})
	}
	return in, nil
}

// GeomThreshold is the edge threshold of the geometric graph by dimension:
// 30, 40, 60 and 85 for 1, 2, 3 and 5 dimensions as in the published data;
// other dimensions scale 40 by sqrt(k/2), rounded up to a multiple of 5.
func GeomThreshold(dim int) float64 {
	switch dim {
	case 1:
		return 30
	case 2:
		return 40
	case 3:
		return 60
	case 5:
		return 85
	}
	return 5 * math.Ceil(40*math.Sqrt(float64(dim)/2)/5)
}

// genGeom: node coordinates uniform in [0, 100] with two decimals; the
// source is the first node.
func genGeom(r *rng, l Level, v variant) (Input, error) {
	k := v.dimOr(2)
	n := length(r, l)
	coords := make([][]float64, n)
	for i := range coords {
		coords[i] = make([]float64, k)
		for j := range coords[i] {
			coords[i][j] = math.Round(r.float()*100*100) / 100
		}
	}
	return Input{Coords: coords, Threshold: GeomThreshold(k), From: slices.Clone(coords[0])}, nil
}

// genBloom: (m, k) = (20, 3) / (50, 4) / (100, 5); insert with probability
// 0.7, else delete an inserted item (one time in five any value).
func genBloom(r *rng, l Level, _ variant) (Input, error) {
	mk := pick3(l, [2]int{20, 3}, [2]int{50, 4}, [2]int{100, 5})
	in := Input{M: mk[0], K: mk[1]}
	var inserted []int
	for range length(r, l) {
		if len(inserted) == 0 || r.chance(0.7) {
			v := value(r)
			inserted = append(inserted, v)
			in.Ops = append(in.Ops, Op{Name: "insert", Args: []int{v}})
			continue
		}
		v := value(r)
		if r.chance(0.8) {
			i := r.intn(len(inserted))
			v = inserted[i]
			inserted = slices.Delete(inserted, i, i+1)
		}
		in.Ops = append(in.Ops, Op{Name: "delete", Args: []int{v}})
	}
	return in, nil
}

// Realistic-probe generators draw made-up names (syllables of narlab's own
// choosing), so that new instances need none of the published prose.

var syllables = []string{"ka", "lo", "mi", "ren", "sa", "to", "vi", "na", "del", "ro", "an", "bel", "cor", "dan", "el", "fa", "gi", "ha", "jun", "ma"}

func madeUpWord(r *rng) string {
	var b strings.Builder
	for range r.between(2, 3) {
		b.WriteString(pick(r, syllables))
	}
	w := b.String()
	return strings.ToUpper(w[:1]) + w[1:]
}

func madeUpName(r *rng) string { return madeUpWord(r) + " " + madeUpWord(r) }

// distinct draws n different strings from draw.
func distinct(r *rng, n int, draw func(*rng) string) []string {
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		s := draw(r)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func genQueueNames(r *rng, l Level, _ variant) (Input, error) {
	m := length(r, l)
	names := distinct(r, m, madeUpName)
	var in Input
	var q []string
	for _, name := range names {
		if len(q) == 0 || r.chance(0.7) {
			q = append(q, name)
			in.Ops = append(in.Ops, Op{Name: "enqueue", Word: name})
		} else {
			in.Ops = append(in.Ops, Op{Name: "dequeue", Word: q[0]})
			q = q[1:]
		}
	}
	return in, nil
}

func genAppointments(r *rng, l Level, _ variant) (Input, error) {
	m := length(r, l)
	names := distinct(r, m, madeUpName)
	var in Input
	var booked []string
	for _, name := range names {
		if len(booked) == 0 || r.chance(0.7) {
			t := fmt.Sprintf("%02d:%02d", r.between(8, 16), r.between(0, 59))
			booked = append(booked, name)
			in.Ops = append(in.Ops, Op{Name: "insert", Word: name, Time: t})
		} else {
			i := r.intn(len(booked))
			in.Ops = append(in.Ops, Op{Name: "delete", Word: booked[i]})
			booked = slices.Delete(booked, i, i+1)
		}
	}
	return in, nil
}

func genPlanets(r *rng, l Level, _ variant) (Input, error) {
	names := distinct(r, length(r, l), madeUpWord)
	var edges [][2]string
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			if r.chance(0.3) {
				edges = append(edges, [2]string{names[i], names[j]})
			}
		}
	}
	return Input{Names: names, NameEdges: edges, SourceName: pick(r, names)}, nil
}
