package dsr

import (
	"fmt"
	"slices"
	"sort"
)

// B+ tree of order m: a node splits when its key count reaches m. A leaf
// keeps the lower half and the new right leaf the upper half, whose
// smallest key is copied up; an internal node promotes its median (the key
// at index m/2) and splits its children around it. Keys equal to a routing
// key go right.
//
// Deletion under the code reading removes the key from its leaf and
// nothing else: no borrowing or merging, routing keys untouched, an empty
// leaf stays. Under the paper reading a non-root node that falls below
// ceil(m/2)-1 keys borrows from its left sibling, else its right sibling,
// else merges with the left sibling, else with the right one (internal
// nodes rotate or pull down the parent's routing key), and an empty
// internal root is replaced by its only child.

type bpNode struct {
	leaf     bool
	keys     []int
	children []*bpNode
}

type bpTree struct {
	root      *bpNode
	order     int
	rebalance bool
}

func newBPTree(order int, rebalance bool) (*bpTree, error) {
	if order < 3 {
		return nil, fmt.Errorf("B+ tree order %d: expected at least 3", order)
	}
	return &bpTree{root: &bpNode{leaf: true}, order: order, rebalance: rebalance}, nil
}

func (t *bpTree) minKeys() int { return (t.order+1)/2 - 1 }

func route(keys []int, key int) int { return sort.SearchInts(keys, key+1) } // bisect_right

func (t *bpTree) insert(key int) {
	sep, right := t.insertAt(t.root, key)
	if right != nil {
		t.root = &bpNode{keys: []int{sep}, children: []*bpNode{t.root, right}}
	}
}

func (t *bpTree) insertAt(n *bpNode, key int) (int, *bpNode) {
	if n.leaf {
		n.keys = slices.Insert(n.keys, route(n.keys, key), key)
		if len(n.keys) < t.order {
			return 0, nil
		}
		mid := len(n.keys) / 2
		right := &bpNode{leaf: true, keys: slices.Clone(n.keys[mid:])}
		n.keys = slices.Clone(n.keys[:mid])
		return right.keys[0], right
	}
	i := route(n.keys, key)
	sep, right := t.insertAt(n.children[i], key)
	if right == nil {
		return 0, nil
	}
	n.keys = slices.Insert(n.keys, i, sep)
	n.children = slices.Insert(n.children, i+1, right)
	if len(n.keys) < t.order {
		return 0, nil
	}
	mid := len(n.keys) / 2
	up := n.keys[mid]
	r := &bpNode{keys: slices.Clone(n.keys[mid+1:]), children: slices.Clone(n.children[mid+1:])}
	n.keys = slices.Clone(n.keys[:mid])
	n.children = slices.Clone(n.children[:mid+1])
	return up, r
}

func (t *bpTree) remove(key int) {
	t.removeAt(t.root, key)
	if t.rebalance && !t.root.leaf && len(t.root.keys) == 0 {
		t.root = t.root.children[0]
	}
}

func (t *bpTree) removeAt(n *bpNode, key int) {
	if n.leaf {
		if j := slices.Index(n.keys, key); j >= 0 {
			n.keys = slices.Delete(n.keys, j, j+1)
		}
		return
	}
	i := route(n.keys, key)
	t.removeAt(n.children[i], key)
	if t.rebalance && len(n.children[i].keys) < t.minKeys() {
		t.fix(n, i)
	}
}

// fix restores the minimum occupancy of p.children[i].
func (t *bpTree) fix(p *bpNode, i int) {
	c := p.children[i]
	var left, right *bpNode
	if i > 0 {
		left = p.children[i-1]
	}
	if i+1 < len(p.children) {
		right = p.children[i+1]
	}
	m := t.minKeys()
	switch {
	case left != nil && len(left.keys) > m:
		if c.leaf {
			last := left.keys[len(left.keys)-1]
			left.keys = left.keys[:len(left.keys)-1]
			c.keys = slices.Insert(c.keys, 0, last)
			p.keys[i-1] = c.keys[0]
		} else {
			c.keys = slices.Insert(c.keys, 0, p.keys[i-1])
			p.keys[i-1] = left.keys[len(left.keys)-1]
			left.keys = left.keys[:len(left.keys)-1]
			c.children = slices.Insert(c.children, 0, left.children[len(left.children)-1])
			left.children = left.children[:len(left.children)-1]
		}
	case right != nil && len(right.keys) > m:
		if c.leaf {
			c.keys = append(c.keys, right.keys[0])
			right.keys = slices.Delete(right.keys, 0, 1)
			p.keys[i] = right.keys[0]
		} else {
			c.keys = append(c.keys, p.keys[i])
			p.keys[i] = right.keys[0]
			right.keys = slices.Delete(right.keys, 0, 1)
			c.children = append(c.children, right.children[0])
			right.children = slices.Delete(right.children, 0, 1)
		}
	case left != nil:
		t.merge(p, i-1)
	case right != nil:
		t.merge(p, i)
	}
}

// merge joins p.children[j+1] into p.children[j].
func (t *bpTree) merge(p *bpNode, j int) {
	a, b := p.children[j], p.children[j+1]
	if a.leaf {
		a.keys = append(a.keys, b.keys...)
	} else {
		a.keys = append(append(a.keys, p.keys[j]), b.keys...)
		a.children = append(a.children, b.children...)
	}
	p.keys = slices.Delete(p.keys, j, j+1)
	p.children = slices.Delete(p.children, j+1, j+2)
}

// value lists the nodes' keys in pre-order.
func (t *bpTree) value() any {
	out := []any{}
	var walk func(n *bpNode)
	walk = func(n *bpNode) {
		out = append(out, intsValue(n.keys))
		for _, c := range n.children {
			walk(c)
		}
	}
	walk(t.root)
	return out
}

func bplusRun(in *Input, o Options, rec recorder) (any, error) {
	t, err := newBPTree(in.Order, o.BPlusDelete == PaperReading)
	if err != nil {
		return nil, err
	}
	for i, op := range in.Ops {
		switch op.Name {
		case "insert":
			t.insert(op.arg(0))
		case "delete":
			t.remove(op.arg(0))
		default:
			return nil, opsError(i, op, "insert or delete")
		}
		rec.put(opText(op), t.value)
	}
	return t.value(), nil
}
