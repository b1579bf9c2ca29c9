package dsr

import "fmt"

// Red-black tree (CLRS, 3rd ed., ch. 13): insertion with recoloring and
// rotations, deletion that splices out the in-order successor of a node with
// two children, followed by the double-black fix-up. Answers are pre-order
// [value, color] pairs, color 0 = red and 1 = black.

const (
	red   = 0
	black = 1
)

type rbNode struct {
	key                 int
	color               int
	left, right, parent *rbNode
}

type rbTree struct {
	root *rbNode
	nil_ *rbNode
}

func newRBTree() *rbTree {
	s := &rbNode{color: black}
	s.left, s.right, s.parent = s, s, s
	return &rbTree{root: s, nil_: s}
}

func (t *rbTree) leftRotate(x *rbNode) {
	y := x.right
	x.right = y.left
	if y.left != t.nil_ {
		y.left.parent = x
	}
	y.parent = x.parent
	switch {
	case x.parent == t.nil_:
		t.root = y
	case x == x.parent.left:
		x.parent.left = y
	default:
		x.parent.right = y
	}
	y.left = x
	x.parent = y
}

func (t *rbTree) rightRotate(x *rbNode) {
	y := x.left
	x.left = y.right
	if y.right != t.nil_ {
		y.right.parent = x
	}
	y.parent = x.parent
	switch {
	case x.parent == t.nil_:
		t.root = y
	case x == x.parent.right:
		x.parent.right = y
	default:
		x.parent.left = y
	}
	y.right = x
	x.parent = y
}

// insert adds key (duplicates go to the right, as in CLRS).
func (t *rbTree) insert(key int) {
	z := &rbNode{key: key, color: red, left: t.nil_, right: t.nil_}
	y, x := t.nil_, t.root
	for x != t.nil_ {
		y = x
		if z.key < x.key {
			x = x.left
		} else {
			x = x.right
		}
	}
	z.parent = y
	switch {
	case y == t.nil_:
		t.root = z
	case z.key < y.key:
		y.left = z
	default:
		y.right = z
	}
	t.insertFixup(z)
}

func (t *rbTree) insertFixup(z *rbNode) {
	for z.parent.color == red {
		if z.parent == z.parent.parent.left {
			y := z.parent.parent.right
			if y.color == red {
				z.parent.color, y.color, z.parent.parent.color = black, black, red
				z = z.parent.parent
				continue
			}
			if z == z.parent.right {
				z = z.parent
				t.leftRotate(z)
			}
			z.parent.color, z.parent.parent.color = black, red
			t.rightRotate(z.parent.parent)
		} else {
			y := z.parent.parent.left
			if y.color == red {
				z.parent.color, y.color, z.parent.parent.color = black, black, red
				z = z.parent.parent
				continue
			}
			if z == z.parent.left {
				z = z.parent
				t.rightRotate(z)
			}
			z.parent.color, z.parent.parent.color = black, red
			t.leftRotate(z.parent.parent)
		}
	}
	t.root.color = black
}

func (t *rbTree) search(key int) *rbNode {
	x := t.root
	for x != t.nil_ && x.key != key {
		if key < x.key {
			x = x.left
		} else {
			x = x.right
		}
	}
	return x
}

func (t *rbTree) minimum(x *rbNode) *rbNode {
	for x.left != t.nil_ {
		x = x.left
	}
	return x
}

func (t *rbTree) transplant(u, v *rbNode) {
	switch {
	case u.parent == t.nil_:
		t.root = v
	case u == u.parent.left:
		u.parent.left = v
	default:
		u.parent.right = v
	}
	v.parent = u.parent
}

// remove deletes key if present (CLRS RB-DELETE).
func (t *rbTree) remove(key int) {
	z := t.search(key)
	if z == t.nil_ {
		return
	}
	y := z
	yColor := y.color
	var x *rbNode
	switch {
	case z.left == t.nil_:
		x = z.right
		t.transplant(z, z.right)
	case z.right == t.nil_:
		x = z.left
		t.transplant(z, z.left)
	default:
		y = t.minimum(z.right)
		yColor = y.color
		x = y.right
		if y.parent == z {
			x.parent = y
		} else {
			t.transplant(y, y.right)
			y.right = z.right
			y.right.parent = y
		}
		t.transplant(z, y)
		y.left = z.left
		y.left.parent = y
		y.color = z.color
	}
	if yColor == black {
		t.deleteFixup(x)
	}
}

func (t *rbTree) deleteFixup(x *rbNode) {
	for x != t.root && x.color == black {
		if x == x.parent.left {
			w := x.parent.right
			if w.color == red {
				w.color, x.parent.color = black, red
				t.leftRotate(x.parent)
				w = x.parent.right
			}
			if w.left.color == black && w.right.color == black {
				w.color = red
				x = x.parent
				continue
			}
			if w.right.color == black {
				w.left.color, w.color = black, red
				t.rightRotate(w)
				w = x.parent.right
			}
			w.color, x.parent.color, w.right.color = x.parent.color, black, black
			t.leftRotate(x.parent)
			x = t.root
		} else {
			w := x.parent.left
			if w.color == red {
				w.color, x.parent.color = black, red
				t.rightRotate(x.parent)
				w = x.parent.left
			}
			if w.right.color == black && w.left.color == black {
				w.color = red
				x = x.parent
				continue
			}
			if w.left.color == black {
				w.right.color, w.color = black, red
				t.leftRotate(w)
				w = x.parent.left
			}
			w.color, x.parent.color, w.left.color = x.parent.color, black, black
			t.rightRotate(x.parent)
			x = t.root
		}
	}
	x.color = black
}

func (t *rbTree) value() any {
	out := []any{}
	var walk func(n *rbNode)
	walk = func(n *rbNode) {
		if n == t.nil_ {
			return
		}
		out = append(out, []any{n.key, n.color})
		walk(n.left)
		walk(n.right)
	}
	walk(t.root)
	return out
}

// rbFromRows builds a red-black tree from pre-order rows with colors (the
// initial trees of the reference's construct_compound files). The rows
// must describe a binary tree; colors are taken as given.
func rbFromRows(rows []TreeNode) (*rbTree, error) {
	t := newRBTree()
	if len(rows) == 0 {
		return t, nil
	}
	b, err := bstFromRows(rows)
	if err != nil {
		return nil, err
	}
	colors := map[int]int{}
	for _, r := range rows {
		switch r.Color {
		case "r", "red":
			colors[r.Value] = red
		case "b", "black":
			colors[r.Value] = black
		default:
			return nil, fmt.Errorf("tree: node %d has color %q (expected r or b)", r.Value, r.Color)
		}
	}
	var build func(n *bstNode, parent *rbNode) *rbNode
	build = func(n *bstNode, parent *rbNode) *rbNode {
		if n == nil {
			return t.nil_
		}
		x := &rbNode{key: n.v, color: colors[n.v], parent: parent}
		x.left = build(n.left, x)
		x.right = build(n.right, x)
		return x
	}
	t.root = build(b, t.nil_)
	return t, nil
}

// rbConstruct inserts the values of in.Array in order into an empty tree.
func rbConstruct(in *Input, _ Options, rec recorder) (any, error) {
	if err := needArray(in); err != nil {
		return nil, err
	}
	t := newRBTree()
	for _, v := range in.Array {
		t.insert(v)
		rec.put(fmt.Sprintf("insert %d", v), t.value)
	}
	return t.value(), nil
}

// rbCompoundRun applies insert/delete, starting from in.Tree when given
// (construct_compound) or else from an empty tree.
func rbCompoundRun(in *Input, _ Options, rec recorder) (any, error) {
	t, err := rbFromRows(in.Tree)
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
