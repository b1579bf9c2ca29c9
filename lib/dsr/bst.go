package dsr

import (
	"errors"
	"fmt"
)

// Binary search tree tasks: pre/in/post-order traversal, depth, insert,
// remove and compound insert/delete.

type bstNode struct {
	v           int
	left, right *bstNode
}

// bstFromRows builds the tree given as rows (value, left child, right child)
// with the root first. Values must be distinct and every child must have a
// row; the tree must be connected.
func bstFromRows(rows []TreeNode) (*bstNode, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	nodes := map[int]*bstNode{}
	for _, r := range rows {
		if _, dup := nodes[r.Value]; dup {
			return nil, fmt.Errorf("tree: value %d appears twice (expected distinct values)", r.Value)
		}
		nodes[r.Value] = &bstNode{v: r.Value}
	}
	child := func(p *int, parent int) (*bstNode, error) {
		if p == nil {
			return nil, nil
		}
		c, ok := nodes[*p]
		if !ok {
			return nil, fmt.Errorf("tree: node %d has child %d with no row of its own", parent, *p)
		}
		return c, nil
	}
	for _, r := range rows {
		n := nodes[r.Value]
		var err error
		if n.left, err = child(r.Left, r.Value); err != nil {
			return nil, err
		}
		if n.right, err = child(r.Right, r.Value); err != nil {
			return nil, err
		}
	}
	root := nodes[rows[0].Value]
	seen := map[*bstNode]bool{}
	var walk func(n *bstNode) error
	walk = func(n *bstNode) error {
		if n == nil {
			return nil
		}
		if seen[n] {
			return fmt.Errorf("tree: node %d is reached twice (expected a tree)", n.v)
		}
		seen[n] = true
		if err := walk(n.left); err != nil {
			return err
		}
		return walk(n.right)
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	if len(seen) != len(rows) {
		return nil, fmt.Errorf("tree: %d of %d nodes are not reachable from the root %d", len(rows)-len(seen), len(rows), rows[0].Value)
	}
	return root, nil
}

// bstRows lists a tree as pre-order rows.
func bstRows(root *bstNode) []TreeNode {
	var out []TreeNode
	var walk func(n *bstNode)
	walk = func(n *bstNode) {
		if n == nil {
			return
		}
		r := TreeNode{Value: n.v}
		if n.left != nil {
			r.Left = intp(n.left.v)
		}
		if n.right != nil {
			r.Right = intp(n.right.v)
		}
		out = append(out, r)
		walk(n.left)
		walk(n.right)
	}
	walk(root)
	return out
}

func bstInsert(n *bstNode, v int) *bstNode {
	if n == nil {
		return &bstNode{v: v}
	}
	switch {
	case v < n.v:
		n.left = bstInsert(n.left, v)
	case v > n.v:
		n.right = bstInsert(n.right, v)
	}
	return n
}

// bstDelete removes v. A node with two children takes the value of its
// in-order successor (code) or predecessor (paper reading), which is then
// removed from that subtree.
func bstDelete(n *bstNode, v int, r Reading) *bstNode {
	if n == nil {
		return nil
	}
	switch {
	case v < n.v:
		n.left = bstDelete(n.left, v, r)
	case v > n.v:
		n.right = bstDelete(n.right, v, r)
	case n.left == nil:
		return n.right
	case n.right == nil:
		return n.left
	case r == PaperReading:
		p := n.left
		for p.right != nil {
			p = p.right
		}
		n.v = p.v
		n.left = bstDelete(n.left, p.v, r)
	default:
		s := n.right
		for s.left != nil {
			s = s.left
		}
		n.v = s.v
		n.right = bstDelete(n.right, s.v, r)
	}
	return n
}

func bstOrder(root *bstNode, order string) []int {
	out := []int{}
	var walk func(n *bstNode)
	walk = func(n *bstNode) {
		if n == nil {
			return
		}
		if order == "pre" {
			out = append(out, n.v)
		}
		walk(n.left)
		if order == "in" {
			out = append(out, n.v)
		}
		walk(n.right)
		if order == "post" {
			out = append(out, n.v)
		}
	}
	walk(root)
	return out
}

func bstDepth(n *bstNode) int {
	if n == nil {
		return 0
	}
	return 1 + max(bstDepth(n.left), bstDepth(n.right))
}

func bstGiven(in *Input) (*bstNode, error) {
	if len(in.Tree) == 0 {
		return nil, errors.New("input has no tree")
	}
	return bstFromRows(in.Tree)
}

func bstTraversal(order string) func(in *Input, _ Options) (any, error) {
	return func(in *Input, _ Options) (any, error) {
		root, err := bstGiven(in)
		if err != nil {
			return nil, err
		}
		return intsValue(bstOrder(root, order)), nil
	}
}

func bstDepthTask(in *Input, _ Options) (any, error) {
	root, err := bstGiven(in)
	if err != nil {
		return nil, err
	}
	return bstDepth(root), nil
}

func prePostValue(root *bstNode) any {
	return map[string]any{
		"pre_order":  intsValue(bstOrder(root, "pre")),
		"post_order": intsValue(bstOrder(root, "post")),
	}
}

func bstInsertTask(in *Input, _ Options) (any, error) {
	root, err := bstGiven(in)
	if err != nil {
		return nil, err
	}
	v, err := needValue(in)
	if err != nil {
		return nil, err
	}
	return prePostValue(bstInsert(root, v)), nil
}

func bstRemoveTask(in *Input, o Options) (any, error) {
	root, err := bstGiven(in)
	if err != nil {
		return nil, err
	}
	v, err := needValue(in)
	if err != nil {
		return nil, err
	}
	return prePostValue(bstDelete(root, v, o.BSTDelete)), nil
}

// bstCompoundRun applies insert/delete to an empty tree; the answer is the
// final pre-order traversal.
func bstCompoundRun(in *Input, o Options, rec recorder) (any, error) {
	var root *bstNode
	for i, op := range in.Ops {
		switch op.Name {
		case "insert":
			root = bstInsert(root, op.arg(0))
		case "delete":
			root = bstDelete(root, op.arg(0), o.BSTDelete)
		default:
			return nil, opsError(i, op, "insert or delete")
		}
		rec.put(opText(op), func() any { return intsValue(bstOrder(root, "pre")) })
	}
	return intsValue(bstOrder(root, "pre")), nil
}
