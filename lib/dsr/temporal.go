package dsr

import (
	"fmt"
	"slices"
	"sort"
)

// Temporal structures: stack, queue, LRU cache and priority queue.

func opsError(i int, op Op, want string) error {
	return fmt.Errorf("operation %d (%q): unknown operation (expected %s)", i, op.Name, want)
}

// stackRun applies push/pop to an empty stack; the state is bottom → top.
// Popping an empty stack does nothing.
func stackRun(in *Input, _ Options, rec recorder) (any, error) {
	var s []int
	for i, op := range in.Ops {
		switch op.Name {
		case "push":
			s = append(s, op.arg(0))
		case "pop":
			if len(s) > 0 {
				s = s[:len(s)-1]
			}
		default:
			return nil, opsError(i, op, "push or pop")
		}
		rec.put(opText(op), func() any { return intsValue(s) })
	}
	return intsValue(s), nil
}

// queueRun applies enqueue/dequeue to an empty queue; the state is
// front → back.
func queueRun(in *Input, _ Options, rec recorder) (any, error) {
	var q []int
	for i, op := range in.Ops {
		switch op.Name {
		case "enqueue":
			q = append(q, op.arg(0))
		case "dequeue":
			if len(q) > 0 {
				q = q[1:]
			}
		default:
			return nil, opsError(i, op, "enqueue or dequeue")
		}
		rec.put(opText(op), func() any { return intsValue(q) })
	}
	return intsValue(slices.Clone(q)), nil
}

// lruRun replays page accesses on an LRU cache of in.Capacity pages; the
// state lists the cached pages from least to most recently used.
func lruRun(in *Input, _ Options, rec recorder) (any, error) {
	if in.Capacity <= 0 {
		return nil, fmt.Errorf("cache capacity %d: expected a positive size", in.Capacity)
	}
	var c []int
	for i, op := range in.Ops {
		if op.Name != "access" {
			return nil, opsError(i, op, "access")
		}
		p := op.arg(0)
		if j := slices.Index(c, p); j >= 0 {
			c = append(c[:j], c[j+1:]...)
		} else if len(c) == in.Capacity {
			c = c[1:]
		}
		c = append(c, p)
		rec.put(opText(op), func() any { return intsValue(c) })
	}
	return intsValue(slices.Clone(c)), nil
}

// pqEntry is a (value, priority) pair with its insertion rank.
type pqEntry struct {
	value, prio, seq int
	parent           *pqEntry
	children         []*pqEntry
	mark             bool
}

// pqRun runs a max priority queue. Under the code reading every entry stays
// a root (the reference's Fibonacci heap never consolidates), so the answer
// is all pairs sorted by priority then value, descending; extract-max takes
// the largest (priority, value). Under the paper reading a real
// max-Fibonacci heap consolidates after each extract-max (ties: the earlier
// insertion wins), raise_key cuts with cascading cuts, decrease_key cuts
// the children that now outrank their parent, and the answer is the
// level-order traversal of the forest, each level sorted by priority then
// value, descending.
func pqRun(in *Input, o Options, rec recorder) (any, error) {
	h := &fibHeap{fib: o.PriorityQueue == PaperReading}
	for i, op := range in.Ops {
		switch op.Name {
		case "insert":
			h.insert(op.arg(0), op.arg(1))
		case "delete":
			h.extractMax()
		case "raise_key", "decrease_key":
			if !h.setKey(op.arg(0), op.arg(1)) {
				// The reference ignores a key change of an absent value.
				break
			}
		default:
			return nil, opsError(i, op, "insert, delete, raise_key or decrease_key")
		}
		rec.put(opText(op), h.value)
	}
	return h.value(), nil
}

type fibHeap struct {
	fib   bool
	roots []*pqEntry
	seq   int
}

func (h *fibHeap) insert(v, p int) {
	h.seq++
	h.roots = append(h.roots, &pqEntry{value: v, prio: p, seq: h.seq})
}

func (h *fibHeap) find(v int) *pqEntry {
	var walk func(ns []*pqEntry) *pqEntry
	walk = func(ns []*pqEntry) *pqEntry {
		for _, n := range ns {
			if n.value == v {
				return n
			}
			if f := walk(n.children); f != nil {
				return f
			}
		}
		return nil
	}
	return walk(h.roots)
}

// outranks reports whether a beats b for extract-max / linking.
func (h *fibHeap) outranks(a, b *pqEntry) bool {
	if a.prio != b.prio {
		return a.prio > b.prio
	}
	if h.fib {
		return a.seq < b.seq // ties broken by insertion order
	}
	return a.value > b.value
}

func (h *fibHeap) extractMax() {
	if len(h.roots) == 0 {
		return
	}
	best := 0
	for i, n := range h.roots {
		if h.outranks(n, h.roots[best]) {
			best = i
		}
	}
	m := h.roots[best]
	h.roots = append(h.roots[:best:best], h.roots[best+1:]...)
	for _, c := range m.children {
		c.parent, c.mark = nil, false
		h.roots = append(h.roots, c)
	}
	if h.fib {
		h.consolidate()
	}
}

func (h *fibHeap) consolidate() {
	var byDegree []*pqEntry
	for _, x := range h.roots {
		for {
			d := len(x.children)
			for len(byDegree) <= d {
				byDegree = append(byDegree, nil)
			}
			y := byDegree[d]
			if y == nil {
				byDegree[d] = x
				break
			}
			byDegree[d] = nil
			if h.outranks(y, x) {
				x, y = y, x
			}
			y.parent, y.mark = x, false
			x.children = append(x.children, y)
		}
	}
	h.roots = h.roots[:0]
	for _, x := range byDegree {
		if x != nil {
			h.roots = append(h.roots, x)
		}
	}
}

func (h *fibHeap) cut(x *pqEntry) {
	p := x.parent
	if p == nil {
		return
	}
	if j := slices.Index(p.children, x); j >= 0 {
		p.children = append(p.children[:j:j], p.children[j+1:]...)
	}
	x.parent, x.mark = nil, false
	h.roots = append(h.roots, x)
}

func (h *fibHeap) cascadingCut(y *pqEntry) {
	for z := y.parent; z != nil; y, z = z, z.parent {
		if !y.mark {
			y.mark = true
			return
		}
		h.cut(y)
	}
}

func (h *fibHeap) setKey(v, p int) bool {
	n := h.find(v)
	if n == nil {
		return false
	}
	old := n.prio
	n.prio = p
	if !h.fib {
		return true
	}
	switch {
	case p > old:
		if par := n.parent; par != nil && p > par.prio {
			h.cut(n)
			h.cascadingCut(par)
		}
	case p < old:
		for _, c := range slices.Clone(n.children) {
			if c.prio > p {
				h.cut(c)
			}
		}
	}
	return true
}

// value lists the forest level by level, each level sorted by priority then
// value, descending, as [value, priority] pairs.
func (h *fibHeap) value() any {
	out := []any{}
	level := slices.Clone(h.roots)
	for len(level) > 0 {
		sort.SliceStable(level, func(i, j int) bool {
			if level[i].prio != level[j].prio {
				return level[i].prio > level[j].prio
			}
			return level[i].value > level[j].value
		})
		var next []*pqEntry
		for _, n := range level {
			out = append(out, []any{n.value, n.prio})
			next = append(next, n.children...)
		}
		level = next
	}
	return out
}
