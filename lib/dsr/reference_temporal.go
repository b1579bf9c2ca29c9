package dsr

import "regexp"

// Record formats of the temporal structures' published files (see
// reference_records.go).

var temporalRefs = map[string]refTask{
	"stack/compound":          {"stack", "compound", &stackQueueFormat},
	"queue/compound":          {"queue", "compound", &stackQueueFormat},
	"lru_cache/cache":         {"lru_cache", "cache", &lruFormat},
	"priority_queue/compound": {"priority_queue", "compound", &pqFormat},
}

var (
	lruHeadRe = regexp.MustCompile(`^LRU Cache Simulation (\d+), Cache Size: (\d+)$`)
	pqOpRe    = regexp.MustCompile(`^(insert|raise_key|decrease_key) \((-?\d+), (-?\d+)\)$`)
)

// stackQueueFormat: "push X" / "pop" (or "enqueue X" / "dequeue") lines,
// then the final state "[…]".
var stackQueueFormat = recordFormat{
	body:  []lineRule{opInt("push ", "push"), opBare("pop"), opInt("enqueue ", "enqueue"), opBare("dequeue")},
	close: truthRule("the final state", listLine),
}

// lruFormat: "LRU Cache Simulation i, Cache Size: c", "access p" lines,
// then "Final Cache: […]".
var lruFormat = recordFormat{
	open:  header("LRU Cache Simulation", lruHeadRe, func(in *Input, xs []int) { in.Capacity = xs[1] }),
	body:  []lineRule{opInt("access ", "access")},
	close: truthRule(`"Final Cache:"`, key("Final Cache:")),
}

// pqFormat: "PriorityQueue i", "insert (v, p)" / "raise_key (v, p)" /
// "decrease_key (v, p)" / "delete" lines, then the final heap "[…]".
var pqFormat = recordFormat{
	open:  header("PriorityQueue ", nil, nil),
	body:  []lineRule{opBare("delete"), opInts(pqOpRe, "")},
	close: truthRule("the final state", listLine),
}
