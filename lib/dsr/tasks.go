package dsr

// The task table: every (structure, operation) with its answer shape, truth,
// generator and prompt.

type runFunc func(in *Input, o Options, rec recorder) (any, error)

func truthOf(run runFunc) func(in *Input, o Options) (any, error) {
	return func(in *Input, o Options) (any, error) { return run(in, o, nil) }
}

// traceOf records the state after each operation of a compound task.
func traceOf(run runFunc, shape *Shape) func(in *Input, o Options) []traceStep {
	return func(in *Input, o Options) []traceStep {
		var steps []traceStep
		_, err := run(in, o, func(action string, state any) {
			steps = append(steps, traceStep{Action: "after " + action, State: shape.Repr(state)})
		})
		if err != nil {
			return nil
		}
		return steps
	}
}

var (
	shapeInts     = listOf(shapeInt)
	shapeIntRows  = listOf(shapeInts)
	shapeIntPairs = listOf(pairOf(shapeInt))
	shapeStrings  = listOf(shapeString)
	shapePrePost  = objectOf(field("pre_order", shapeInts), field("post_order", shapeInts))
	shapeHashmap  = listOf(objectOf(
		field("number", shapeInt),
		field("contents", listOf(objectOf(field("key", shapeInt), field("value", shapeInt)))),
	))
	shapeFloatRows = listOf(listOf(shapeFloat))
	shapeStrPairs  = listOf(pairOf(shapeString))
)

func compound(structure, op string, shape *Shape, run runFunc, gen func(*rng, Level, variant) (Input, error), p func(*Input, Options) taskText) *Task {
	return &Task{Structure: structure, Operation: op, Answer: shape, truth: truthOf(run), trace: traceOf(run, shape), generate: gen, prompt: p}
}

func atomic(structure, op string, shape *Shape, truth func(*Input, Options) (any, error), gen func(*rng, Level, variant) (Input, error), p func(*Input, Options) taskText) *Task {
	return &Task{Structure: structure, Operation: op, Answer: shape, truth: truth, generate: gen, prompt: p}
}

func init() {
	// Linear.
	register(atomic("array", "access", shapeInt, arrayAccess, genArrayAccess, promptArray("access")))
	register(atomic("array", "delete", shapeInts, arrayDelete, genArrayDelete, promptArray("delete")))
	register(atomic("array", "insert", shapeInts, arrayInsert, genArrayInsert, promptArray("insert")))
	register(atomic("array", "reverse", shapeInts, arrayReverse, genArrayReverse, promptArray("reverse")))
	register(atomic("array", "search", shapeInt, arraySearch, genArraySearch, promptArray("search")))
	// Temporal.
	register(compound("stack", "compound", shapeInts, stackRun, genStack, promptStack))
	register(compound("queue", "compound", shapeInts, queueRun, genQueue, promptQueue))
	register(compound("lru_cache", "cache", shapeInts, lruRun, genLRU, promptLRU))
	register(compound("priority_queue", "compound", shapeIntPairs, pqRun, genPQ, promptPQ))
	// Associative.
	register(compound("hashmap", "compound", shapeHashmap, hashmapRun, genHashmap, promptHashmap))
	register(compound("trie", "compound", shapeStrings, trieRun, genTrie, promptTrie))
	register(atomic("suffix_tree", "construct", shapeStrings, suffixTree, genSuffix, promptSuffix))
	register(compound("skip_list", "compound", shapeIntRows, skipListRun, genSkipList, promptSkipList))
	// Hierarchical.
	register(atomic("bst", "preorder", shapeInts, bstTraversal("pre"), genBSTTree, promptBSTTraversal("pre-order")))
	register(atomic("bst", "inorder", shapeInts, bstTraversal("in"), genBSTTree, promptBSTTraversal("in-order")))
	register(atomic("bst", "postorder", shapeInts, bstTraversal("post"), genBSTTree, promptBSTTraversal("post-order")))
	register(atomic("bst", "depth", shapeInt, bstDepthTask, genBSTTree, promptBSTDepth))
	register(atomic("bst", "insert", shapePrePost, bstInsertTask, genBSTInsert, promptBSTChange("insert")))
	register(atomic("bst", "remove", shapePrePost, bstRemoveTask, genBSTRemove, promptBSTChange("remove")))
	register(compound("bst", "compound", shapeInts, bstCompoundRun, genBSTCompound, promptBSTCompound))
	register(compound("heap", "compound", shapeInts, heapRun, genHeap, promptHeap))
	register(atomic("heap", "heapify", shapeInts, heapifyTask, genHeapify, promptHeapify))
	rbc := compound("rb_tree", "construct", shapeIntPairs, rbConstruct, genRBConstruct, promptRBConstruct)
	register(rbc)
	register(compound("rb_tree", "compound", shapeIntPairs, rbCompoundRun, genRBCompound, promptRBCompound))
	register(compound("b_plus_tree", "compound", shapeIntRows, bplusRun, genBPlus, promptBPlus))
	kdt := atomic("kd_tree", "construct", shapeIntRows, kdTreeTask, genKDTree, promptKDTree)
	kdt.Spatial = true
	register(kdt)
	kdh := compound("kd_heap", "compound", shapeInts, kdHeapRun, genKDHeap, promptKDHeap)
	kdh.Spatial = true
	register(kdh)
	// Network.
	register(atomic("graph", "bfs", shapeInts, graphTraversal("bfs"), genGraph, promptGraph("bfs")))
	register(atomic("graph", "dfs", shapeInts, graphTraversal("dfs"), genGraph, promptGraph("dfs")))
	register(compound("dsu", "compound", shapeInts, dsuRun, genDSU, promptDSU))
	geo := atomic("geom_graph", "construct", shapeFloatRows, geomGraph, genGeom, promptGeom)
	geo.Spatial = true
	register(geo)
	// Hybrid.
	register(compound("bloom_filter", "compound", shapeInts, bloomRun, genBloom, promptBloom))
	register(compound("dawg", "compound", shapeStrPairs, dawgRun, genDAWG, promptDAWG))

	// Realistic probe.
	for _, t := range []*Task{
		compound("queue", "realistic", shapeStrings, queueNamesRun, genQueueNames, promptRealistic("queue")),
		compound("bst", "realistic", shapeStrPairs, apptRun, genAppointments, promptRealistic("bst")),
		atomic("graph", "realistic", shapeStrings, planetDFS, genPlanets, promptRealistic("graph")),
	} {
		t.Probe = ProbeRealistic
		register(t)
	}

	// In the reference data only: red-black insert/delete starting from a
	// given colored tree.
	rcc := compound("rb_tree", "construct_compound", shapeIntPairs, rbCompoundRun, genRBConstructCompound, promptRBCompound)
	rcc.Probe = ProbeExtra
	register(rcc)
}
