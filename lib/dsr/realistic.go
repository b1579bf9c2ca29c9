package dsr

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The realistic probe's three tasks. Their inputs are names instead of
// numbers: a queue of people, a BST of clinic appointments keyed by (time,
// name), and a depth-first traversal of a graph of planets. narlab ships
// no scenario prose: LoadRealistic reads the published instances and
// RealisticPrompt the published templates, at run time.

// queueNamesRun replays enqueue/dequeue of names; the answer is the queue,
// front first.
func queueNamesRun(in *Input, _ Options, rec recorder) (any, error) {
	var q []string
	for i, op := range in.Ops {
		switch op.Name {
		case "enqueue":
			q = append(q, op.Word)
		case "dequeue":
			if len(q) > 0 {
				q = q[1:]
			}
		default:
			return nil, opsError(i, op, "enqueue or dequeue")
		}
		rec.put(opText(op), func() any { return stringsValue(q) })
	}
	return stringsValue(q), nil
}

type appt struct{ name, time string }

func apptCmp(a, b appt) int {
	if c := cmp.Compare(a.time, b.time); c != 0 {
		return c
	}
	return cmp.Compare(a.name, b.name)
}

type apptNode struct {
	k           appt
	left, right *apptNode
}

func apptInsert(n *apptNode, k appt) *apptNode {
	if n == nil {
		return &apptNode{k: k}
	}
	switch c := apptCmp(k, n.k); {
	case c < 0:
		n.left = apptInsert(n.left, k)
	case c > 0:
		n.right = apptInsert(n.right, k)
	}
	return n
}

func apptDelete(n *apptNode, k appt, r Reading) *apptNode {
	if n == nil {
		return nil
	}
	switch c := apptCmp(k, n.k); {
	case c < 0:
		n.left = apptDelete(n.left, k, r)
	case c > 0:
		n.right = apptDelete(n.right, k, r)
	case n.left == nil:
		return n.right
	case n.right == nil:
		return n.left
	case r == PaperReading:
		p := n.left
		for p.right != nil {
			p = p.right
		}
		n.k = p.k
		n.left = apptDelete(n.left, p.k, r)
	default:
		s := n.right
		for s.left != nil {
			s = s.left
		}
		n.k = s.k
		n.right = apptDelete(n.right, s.k, r)
	}
	return n
}

func apptValue(root *apptNode, order string) any {
	out := []any{}
	var walk func(n *apptNode)
	walk = func(n *apptNode) {
		if n == nil {
			return
		}
		if order == "pre" {
			out = append(out, []any{n.k.name, n.k.time})
		}
		walk(n.left)
		if order == "in" {
			out = append(out, []any{n.k.name, n.k.time})
		}
		walk(n.right)
	}
	walk(root)
	return out
}

// apptRun books and cancels appointments (a cancellation names the
// person); the answer is the pre-order list of [name, time] pairs.
func apptRun(in *Input, o Options, rec recorder) (any, error) {
	var root *apptNode
	booked := map[string]string{}
	for i, op := range in.Ops {
		switch op.Name {
		case "insert":
			if op.Time == "" {
				return nil, fmt.Errorf("operation %d: booking of %q has no time", i, op.Word)
			}
			root = apptInsert(root, appt{op.Word, op.Time})
			booked[op.Word] = op.Time
		case "delete":
			t, ok := booked[op.Word]
			if !ok {
				break
			}
			root = apptDelete(root, appt{op.Word, t}, o.BSTDelete)
			delete(booked, op.Word)
		default:
			return nil, opsError(i, op, "insert or delete")
		}
		rec.put(opText(op), func() any { return apptValue(root, "pre") })
	}
	return apptValue(root, "pre"), nil
}

// planetDFS answers the depth-first order from the source, neighbors in
// alphabetical order.
func planetDFS(in *Input, _ Options) (any, error) {
	if in.SourceName == "" {
		return nil, errors.New("input has no source")
	}
	adj, err := adjacency(in.Names, in.NameEdges, strings.Compare)
	if err != nil {
		return nil, err
	}
	if _, ok := adj[in.SourceName]; !ok {
		return nil, fmt.Errorf("source %q is not in the node list", in.SourceName)
	}
	return stringsValue(slices.Clone(dfsOrder(adj, in.SourceName))), nil
}
