package dsr

import "regexp"

// Record formats of the hybrid structures' published files (see
// reference_records.go).

var hybridRefs = map[string]refTask{
	"bloom_filter/compound": {"bloom_filter", "compound", &bloomFormat},
	"dawg/compound":         {"dawg", "compound", wordOpsFormat("DAWG ")},
}

var bloomRe = regexp.MustCompile(`^CountingBloomFilter (\d+) \(m: (\d+), k: (\d+)\)$`)

// bloomFormat: "CountingBloomFilter i (m: m, k: k)", "insert X" /
// "delete X" lines, then the counters "[…]".
var bloomFormat = recordFormat{
	open:  header("CountingBloomFilter ", bloomRe, func(in *Input, xs []int) { in.M, in.K = xs[1], xs[2] }),
	body:  insertDelete,
	close: truthRule("the final state", listLine),
}
