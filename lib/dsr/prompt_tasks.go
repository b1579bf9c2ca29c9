package dsr

import (
	"fmt"
	"strconv"
	"strings"
)

// narlab's own wording of each task: a description of the structure, the
// exact rules of its operations (tie-breaking included), the given state
// and inputs, and the question. None of it is taken from the reference.

// taskText is the wording of one instance.
type taskText struct {
	Describe string // what the structure is (the "full" description)
	Rules    string // the operations' semantics and tie rules
	Given    string // initial state and inputs
	Question string // what is asked
}

// opText renders one operation in the tuple style the prompts use.
func opText(op Op) string {
	parts := []string{op.Name}
	switch {
	case op.Time != "":
		parts = append(parts, op.Word, op.Time)
	case op.Word != "":
		parts = append(parts, op.Word)
	default:
		for i, a := range op.Args {
			if i == 0 && op.Vec != nil {
				parts = append(parts, strconv.Itoa(a), intsRepr(op.Vec))
				continue
			}
			parts = append(parts, strconv.Itoa(a))
		}
	}
	s := "(" + strings.Join(parts, ", ") + ")"
	if len(op.Probs) > 0 {
		ps := make([]string, len(op.Probs))
		for i, p := range op.Probs {
			ps[i] = strconv.FormatFloat(p, 'f', 4, 64)
		}
		s += " with promotion draws " + strings.Join(ps, ", ")
	}
	return s
}

func opsList(ops []Op) string {
	lines := make([]string, len(ops))
	for i, op := range ops {
		lines[i] = opText(op)
	}
	return strings.Join(lines, "\n")
}

func intsRepr(xs []int) string { return shapeInts.Repr(intsValue(xs)) }

func treeText(rows []TreeNode) string {
	if len(rows) == 0 {
		return "The tree is empty."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The root holds %d.", rows[0].Value)
	for _, r := range rows {
		switch {
		case r.Left != nil && r.Right != nil:
			fmt.Fprintf(&b, " Node %d has left child %d and right child %d.", r.Value, *r.Left, *r.Right)
		case r.Left != nil:
			fmt.Fprintf(&b, " Node %d has only a left child, %d.", r.Value, *r.Left)
		case r.Right != nil:
			fmt.Fprintf(&b, " Node %d has only a right child, %d.", r.Value, *r.Right)
		}
	}
	b.WriteString(" Every other node is a leaf.")
	return b.String()
}

func derefOr(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

const arrayDescribe = "An array stores a sequence of elements in positions numbered from 0; the element at position i is reached directly through its index."

func promptArray(op string) func(in *Input, _ Options) taskText {
	return func(in *Input, _ Options) taskText {
		t := taskText{Describe: arrayDescribe, Given: "The array is " + intsRepr(in.Array) + "."}
		switch op {
		case "access":
			t.Question = fmt.Sprintf("Which value is stored at index %d?", derefOr(in.Index))
		case "delete":
			t.Rules = "Deleting a value removes only its first occurrence (the one with the lowest index); the elements after it move one position to the left."
			t.Question = fmt.Sprintf("Delete the value %d. What is the array afterwards?", derefOr(in.Value))
		case "insert":
			t.Rules = "Inserting at index i places the new element at position i; the element that was there and all later ones move one position to the right."
			t.Question = fmt.Sprintf("Insert the value %d at index %d. What is the array afterwards?", derefOr(in.Value), derefOr(in.Index))
		case "reverse":
			t.Question = "What is the array with its elements in reverse order?"
		case "search":
			t.Rules = "When a value occurs more than once, its first occurrence (lowest index) counts; indices start at 0."
			t.Question = fmt.Sprintf("At which index does the value %d occur first?", derefOr(in.Value))
		}
		return t
	}
}

func promptStack(in *Input, _ Options) taskText {
	return taskText{
		Describe: "A stack keeps its elements in last-in, first-out order: the element added most recently is the first one to leave.",
		Rules:    "(push, k) puts k on top of the stack. (pop) takes away the element on top. The stack is empty at the start.",
		Given:    "Operations, in order:\n" + opsList(in.Ops),
		Question: "What does the stack hold after all the operations? List its elements from the bottom to the top.",
	}
}

func promptQueue(in *Input, _ Options) taskText {
	return taskText{
		Describe: "A queue keeps its elements in first-in, first-out order: elements join at the back and leave from the front.",
		Rules:    "(enqueue, k) adds k at the back of the queue. (dequeue) takes away the element at the front. The queue is empty at the start.",
		Given:    "Operations, in order:\n" + opsList(in.Ops),
		Question: "What does the queue hold after all the operations? List its elements from the front to the back.",
	}
}

func promptLRU(in *Input, _ Options) taskText {
	return taskText{
		Describe: "A least-recently-used (LRU) cache keeps a fixed number of pages and, when it must make room, evicts the page whose last use lies furthest in the past.",
		Rules: fmt.Sprintf("The cache holds at most %d pages and is empty at the start. (access, p) uses page p: if p is cached it becomes the most recently used page; "+
			"otherwise p is added as the most recently used page, after evicting the least recently used page if the cache is already full.", in.Capacity),
		Given:    "Accesses, in order:\n" + opsList(in.Ops),
		Question: "Which pages are in the cache after the last access? List them from the least to the most recently used.",
	}
}

func promptPQ(in *Input, o Options) taskText {
	t := taskText{
		Given: "Operations, in order, starting from an empty queue:\n" + opsList(in.Ops),
	}
	if o.PriorityQueue == PaperReading {
		t.Describe = "This max-priority queue is a Fibonacci heap: a forest of trees in which no child has a higher priority than its parent, with the tree roots kept in a root list."
		t.Rules = "(insert, v, p) adds the value v with priority p as a one-node tree in the root list. " +
			"(delete) extracts the maximum: the root with the highest priority (on a tie, the one inserted earliest) is removed, its children join the root list, " +
			"and the roots are consolidated: while two roots have the same number of children, they are linked, the root with the lower priority (on a tie, the one inserted later) becoming the last child of the other. " +
			"(raise_key, v, p) raises the priority of v to p; if v now has a higher priority than its parent, v is cut into the root list, and its parent is cut too if it had already lost a child (cascading cuts; a parent losing its first child is marked). " +
			"(decrease_key, v, p) lowers the priority of v to p; every child of v that now has a higher priority than v is cut into the root list."
		t.Question = "Give the level-order traversal of the final forest as [value, priority] pairs: first all roots, then all their children, then the grandchildren, and so on, " +
			"with the nodes of each level sorted by descending priority and, on equal priorities, by descending value."
		return t
	}
	t.Describe = "A max-priority queue stores values with integer priorities and always serves the value of the highest priority first."
	t.Rules = "(insert, v, p) adds the value v with priority p. (delete) removes the entry with the highest priority; on equal priorities, the larger value goes first. " +
		"(raise_key, v, p) and (decrease_key, v, p) change the priority of v to p."
	t.Question = "List the entries left in the queue as [value, priority] pairs, by descending priority and, on equal priorities, by descending value."
	return t
}

func promptHashmap(in *Input, _ Options) taskText {
	return taskText{
		Describe: fmt.Sprintf("A hashmap stores key-value pairs in %d buckets numbered 0 to %d. The key k goes to bucket k mod %d; "+
			"the pairs that share a bucket form a chain kept in the order they were added (separate chaining).", in.Buckets, in.Buckets-1, in.Buckets),
		Rules: "(add, k, v) stores the value v under the key k; if k is already stored, its value becomes v and it keeps its place in the chain. " +
			"(remove, k) deletes the key k with its value; removing a key that is not stored changes nothing. The hashmap is empty at the start.",
		Given:    "Operations, in order:\n" + opsList(in.Ops),
		Question: "What does each bucket contain at the end? Give every bucket, the empty ones too, with its number and its chain of key/value pairs in chain order.",
	}
}

const trieRules = "(insert, w) adds the word w. (delete, w) removes the word w: its end mark is cleared, then, from the bottom up, each of its nodes that has no children and ends no other word is removed. Deleting a word that is not stored changes nothing."

func promptTrie(in *Input, _ Options) taskText {
	return taskText{
		Describe: "A trie stores words as paths of characters that start at a root node; words with a common prefix share the nodes of that prefix, and every node records whether a word ends there.",
		Rules:    trieRules + " The trie is empty at the start.",
		Given:    "Operations, in order:\n" + opsList(in.Ops),
		Question: "List the nodes of the final trie in pre-order: the root first, written as the empty string '', then the character of each node, visiting the children of a node in alphabetical order.",
	}
}

func promptSuffix(in *Input, _ Options) taskText {
	return taskText{
		Describe: "A suffix tree of a word is the compressed trie of all its suffixes: every chain of nodes with a single child is merged into one edge, so an edge can carry several characters.",
		Rules:    "The terminal character $ is appended to the word before the tree is built, so every suffix ends at a leaf of its own.",
		Given:    fmt.Sprintf("The word, with its terminal character, is %s$.", strings.TrimSuffix(in.Word, "$")),
		Question: "List the edge labels of the suffix tree in pre-order, visiting the edges below each node in lexicographic order with $ before any letter.",
	}
}

func promptSkipList(in *Input, _ Options) taskText {
	return taskText{
		Describe: "A skip list keeps sorted values on stacked linked lists: level 0 holds every value and each higher level holds a subset of the level below, which lets a search skip ahead.",
		Rules: fmt.Sprintf("The highest level is %d and the list is empty at the start. (insert, v) adds v at level 0, unless v is already in the list, in which case nothing changes. "+
			"The new value is then promoted using the promotion draws listed with the operation, read in order: while the next draw is below 0.5 and the value's top level is below %d, the value is also added one level higher; "+
			"the first draw of 0.5 or more ends the promotion. (delete, v) removes v from every level; deleting a value that is not present changes nothing.", in.MaxLevel, in.MaxLevel),
		Given:    "Operations, in order:\n" + opsList(in.Ops),
		Question: "List the levels that hold at least one value, from the highest down to level 0, each level as the ascending list of its values.",
	}
}

const bstDescribe = "A binary search tree stores distinct values so that every value in the left subtree of a node is smaller than the node's value and every value in its right subtree is larger."

func bstRemoveRule(o Options) string {
	if o.BSTDelete == PaperReading {
		return "Removing a value: a leaf is simply taken away; a node with one child is replaced by that child; a node with two children takes the value of its in-order predecessor (the largest value in its left subtree), which is then removed from that subtree."
	}
	return "Removing a value: a leaf is simply taken away; a node with one child is replaced by that child; a node with two children takes the value of its in-order successor (the smallest value in its right subtree), which is then removed from that subtree."
}

const bstInsertRule = "Inserting a value: starting at the root, go left when the value is smaller than the node's and right when it is larger, and attach the value as a new leaf where the path ends."

func promptBSTTraversal(order string) func(in *Input, _ Options) taskText {
	return func(in *Input, _ Options) taskText {
		return taskText{Describe: bstDescribe, Given: treeText(in.Tree), Question: fmt.Sprintf("List the values of the tree in %s.", order)}
	}
}

func promptBSTDepth(in *Input, _ Options) taskText {
	return taskText{Describe: bstDescribe, Given: treeText(in.Tree),
		Question: "The root is at depth 1. What is the depth of the tree, that is, the number of nodes on its longest path from the root to a leaf?"}
}

func promptBSTChange(op string) func(in *Input, o Options) taskText {
	return func(in *Input, o Options) taskText {
		t := taskText{Describe: bstDescribe, Given: treeText(in.Tree)}
		if op == "insert" {
			t.Rules = bstInsertRule
			t.Question = fmt.Sprintf("Insert the value %d. What are the pre-order and the post-order traversals of the resulting tree?", derefOr(in.Value))
		} else {
			t.Rules = bstRemoveRule(o)
			t.Question = fmt.Sprintf("Remove the value %d. What are the pre-order and the post-order traversals of the resulting tree?", derefOr(in.Value))
		}
		return t
	}
}

func promptBSTCompound(in *Input, o Options) taskText {
	return taskText{
		Describe: bstDescribe,
		Rules:    "(insert, k) inserts k and (delete, k) removes k, starting from an empty tree. " + bstInsertRule + " " + bstRemoveRule(o),
		Given:    "Operations, in order:\n" + opsList(in.Ops),
		Question: "What is the pre-order traversal of the final tree?",
	}
}

const heapDescribe = "A binary min-heap is a complete binary tree stored in an array: the children of position i are at positions 2i+1 and 2i+2, and no element is smaller than its parent."

const heapSiftDown = "Sifting an element down: while it has a child that is strictly smaller, it swaps with its smaller child (with the left child when both children are equal)."

func promptHeap(in *Input, _ Options) taskText {
	return taskText{
		Describe: heapDescribe,
		Rules: "(insert, k) appends k at the end of the array and sifts it up: while it is strictly smaller than its parent, the two swap. " +
			"(delete) removes the minimum: the last element of the array moves to position 0 and sifts down. " + heapSiftDown + " The heap is empty at the start.",
		Given:    "Operations, in order:\n" + opsList(in.Ops),
		Question: "What is the heap's array after all the operations?",
	}
}

func promptHeapify(in *Input, _ Options) taskText {
	return taskText{
		Describe: heapDescribe,
		Rules:    "Heapify works bottom-up: for each position i from floor(n/2) - 1 down to 0, the element at position i is sifted down. " + heapSiftDown,
		Given:    "The array is " + intsRepr(in.Array) + ".",
		Question: "What is the array after heapify turns it into a min-heap?",
	}
}

const rbDescribe = "A red-black tree is a binary search tree whose nodes are colored red or black: the root is black, no red node has a red child, and every path from a node down to an empty subtree meets the same number of black nodes."

const rbInsertRule = "Insertion follows the textbook algorithm (Cormen et al., Introduction to Algorithms): the value is inserted as in a binary search tree as a red node; while its parent is red, " +
	"a red uncle is handled by recoloring parent and uncle black and grandparent red and continuing at the grandparent, and a black uncle by one or two rotations with recoloring; finally the root is colored black."

const rbDeleteRule = "Deletion also follows that textbook: a node with two children is replaced by its in-order successor, and when a black node leaves its position the double-black fix-up (recoloring and rotations around the sibling) restores the rules."

const rbQuestion = "List the nodes of the final tree in pre-order as [value, color] pairs, with color 0 for red and 1 for black."

func promptRBConstruct(in *Input, _ Options) taskText {
	return taskText{Describe: rbDescribe, Rules: rbInsertRule,
		Given:    "Starting from an empty tree, insert these values in order: " + intsRepr(in.Array) + ".",
		Question: rbQuestion}
}

func promptRBCompound(in *Input, _ Options) taskText {
	start := "starting from an empty tree"
	if len(in.Tree) > 0 {
		var cs []string
		for _, r := range in.Tree {
			c := "red"
			if r.Color == "b" {
				c = "black"
			}
			cs = append(cs, fmt.Sprintf("%d is %s", r.Value, c))
		}
		start = "starting from this tree: " + treeText(in.Tree) + " Colors: " + strings.Join(cs, ", ") + "."
	}
	return taskText{Describe: rbDescribe, Rules: rbInsertRule + " " + rbDeleteRule + " (insert, v) inserts v and (delete, v) deletes v; deleting an absent value changes nothing.",
		Given:    "Operations, in order, " + start + "\n" + opsList(in.Ops),
		Question: rbQuestion}
}

func promptBPlus(in *Input, o Options) taskText {
	del := "Deletion removes the key from its leaf and does nothing else: no keys are borrowed, no nodes are merged, routing keys stay as they are, and a leaf may become empty."
	if o.BPlusDelete == PaperReading {
		del = fmt.Sprintf("Deletion removes the key from its leaf. A node other than the root that is left with fewer than %d keys (ceil(m/2) - 1) first tries to borrow from its left sibling, then from its right sibling, "+
			"when that sibling has more than the minimum; a leaf borrows a key directly and the routing key between the two siblings becomes the first key of the right one, "+
			"an internal node borrows by rotating a key through the parent. Otherwise the node merges with its left sibling, or else with its right one (internal nodes pull the parent's routing key down between them). "+
			"An internal root left without keys is replaced by its only child.", (in.Order+1)/2-1)
	}
	return taskText{
		Describe: fmt.Sprintf("A B+ tree of order m = %d keeps all values in its leaves; internal nodes hold routing keys, and a search for k follows the child to the right of every routing key that is at most k.", in.Order),
		Rules: "Insertion puts the value into its leaf in sorted order (a value equal to a routing key goes right). A leaf that reaches m keys splits: its first m/2 keys stay and the rest move to a new leaf on its right, " +
			"whose smallest key is copied into the parent as a routing key. An internal node that reaches m keys splits around its key at position m/2 (counting from 0), which moves up into the parent; " +
			"the keys before it stay in the left node and those after it go to the new right node. A split root gets a new root above it. " + del + " The tree is empty at the start.",
		Given:    "Operations, in order:\n" + opsList(in.Ops),
		Question: "List the nodes of the final tree in pre-order, each node as the ascending list of its keys.",
	}
}

func promptKDTree(in *Input, o Options) taskText {
	ties := "ordering points with equal coordinates as NumPy's default argsort does (for 16 points or fewer this keeps their current order)"
	if o.KDTies == PaperReading {
		ties = "keeping the current order of points with equal coordinates (a stable sort)"
	}
	return taskText{
		Describe: "A k-d tree stores k-dimensional points in a binary tree that splits space along one coordinate per level.",
		Rules: "Build the tree recursively: at depth d (the root is at depth 0) split on coordinate d mod k. Sort the current points on that coordinate, " + ties + "; " +
			"the point at position floor(n/2) of the sorted list, counting from 0 (for an even count, the later of the two middle points), becomes the node, the points before it, in sorted order, form the left subtree and the points after it the right subtree.",
		Given:    "The points are " + shapeIntRows.Repr(intRowsValue(in.Points)) + ".",
		Question: "List the points of the tree in pre-order.",
	}
}

func promptKDHeap(in *Input, o Options) taskText {
	cmp := "Entries are compared by the Euclidean norm of their priority vectors: the smaller norm comes first."
	if o.KDHeapMetric == Lexicographic {
		cmp = "Entries are compared lexicographically by their priority vectors: by the first coordinate, then by the second on a tie, and so on."
	}
	return taskText{
		Describe: fmt.Sprintf("A k-d heap is a binary min-heap stored in an array whose entries are labels with %d-dimensional priority vectors; the children of position i are at positions 2i+1 and 2i+2.", in.Dim),
		Rules: cmp + " (insert, label, [p1, …]) appends the entry and sifts it up while it is strictly smaller than its parent. " +
			"(delete) removes the minimum: the last entry moves to position 0 and sifts down, swapping with its smaller child (the left one when the children are equal) while that child is strictly smaller. The heap is empty at the start.",
		Given:    "Operations, in order:\n" + opsList(in.Ops),
		Question: "List the labels in the order of the heap's array after all the operations.",
	}
}

func edgesText(edges [][2]int) string {
	parts := make([]string, len(edges))
	for i, e := range edges {
		parts[i] = fmt.Sprintf("(%d, %d)", e[0], e[1])
	}
	return strings.Join(parts, ", ")
}

func promptGraph(kind string) func(in *Input, _ Options) taskText {
	return func(in *Input, _ Options) taskText {
		t := taskText{
			Describe: "An undirected graph connects nodes by edges that can be followed in both directions.",
			Given:    fmt.Sprintf("The nodes are %s and the edges are %s.", intsRepr(in.Nodes), edgesText(in.Edges)),
		}
		if kind == "bfs" {
			t.Rules = "A breadth-first search visits the start node, then all of its unvisited neighbors, then their unvisited neighbors, level after level; the neighbors of a node are taken in ascending order."
			t.Question = fmt.Sprintf("In which order does a breadth-first search from node %d visit the nodes? List only the nodes it reaches.", derefOr(in.Source))
		} else {
			t.Rules = "A depth-first search visits a node and then, for each neighbor in ascending order that is still unvisited, explores everything reachable from that neighbor before going on to the next one."
			t.Question = fmt.Sprintf("In which order does a depth-first search from node %d visit the nodes? List only the nodes it reaches.", derefOr(in.Source))
		}
		return t
	}
}

func promptDSU(in *Input, _ Options) taskText {
	return taskText{
		Describe: "A disjoint-set union (union-find) keeps elements in disjoint sets, each represented by the root of a tree of parent pointers.",
		Rules: "At the start every element is a set of its own with rank 0. find(x) follows the parent pointers from x to the root and then points every node on that path directly at the root. " +
			"(union, x, y) finds the roots of x and y; if they differ, the root of lower rank goes under the root of higher rank; if the ranks are equal, the root of y's set goes under the root of x's set, whose rank grows by 1.",
		Given:    "The elements are " + intsRepr(in.Array) + ". Operations, in order:\n" + opsList(in.Ops),
		Question: "After the unions, what is find(x) for each element x, in the order the elements were listed?",
	}
}

func promptGeom(in *Input, _ Options) taskText {
	return taskText{
		Describe: "A geometric graph places its nodes at points in space and joins two nodes by an edge when the Euclidean distance between them is below a threshold; the weight of the edge is that distance.",
		Rules:    "Search the graph breadth-first from the start point: visit the start, then its unvisited neighbors, then their unvisited neighbors, and so on; the unvisited neighbors of a node are visited in order of increasing edge weight.",
		Given: fmt.Sprintf("The nodes are %s. The threshold is %s. The start point is %s.", shapeFloatRows.Repr(floatRowsValue(in.Coords)),
			strconv.FormatFloat(in.Threshold, 'f', -1, 64), listOf(shapeFloat).Repr(floatRowsValue([][]float64{in.From})[0])),
		Question: "List the points in the order in which the breadth-first search visits them.",
	}
}

func promptBloom(in *Input, _ Options) taskText {
	return taskText{
		Describe: fmt.Sprintf("A counting Bloom filter keeps m = %d counters and uses k = %d hash functions: inserting an item adds 1 to the counter at each of its k positions and deleting it subtracts 1.", in.M, in.K),
		Rules: "The positions of an item x are given, for i = 0 to k-1, by: set h = 0; for each character c of x written in decimal, set h = h * 131 + (the character code of c); the position is (h + i) mod m. " +
			"A delete never takes a counter below 0. All counters are 0 at the start.",
		Given:    "Operations, in order:\n" + opsList(in.Ops),
		Question: "What are the counters, from position 0 to m-1, after all the operations?",
	}
}

func promptDAWG(in *Input, _ Options) taskText {
	return taskText{
		Describe: "A directed acyclic word graph (DAWG) stores a set of words like a trie but also shares common suffixes by merging equivalent nodes.",
		Rules: "First apply the operations to a trie that is empty at the start: " + trieRules + " After the last operation, merge equivalent nodes: two nodes are equivalent when both end a word or neither does and they have the same characters on their outgoing edges, leading to equivalent nodes. " +
			"Then traverse the result breadth-first from the root, following outgoing edges in alphabetical order and listing each node once, the first time it is reached: as the prefix spelled by the path that reached it (the root is '') with 'T' if it ends a word and 'F' otherwise.",
		Given:    "Operations, in order:\n" + opsList(in.Ops),
		Question: "What is the list of [prefix, flag] pairs?",
	}
}
