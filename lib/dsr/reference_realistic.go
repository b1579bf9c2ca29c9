package dsr

import "regexp"

// Record formats of the realistic probe's published files
// (natural/<task>/natural-<level>.txt; see reference_records.go).

var realisticRefs = map[string]refTask{
	"natural/queue": {"queue", "realistic", &naturalQueueFormat},
	"natural/bst":   {"bst", "realistic", &naturalBSTFormat},
	"natural/graph": {"graph", "realistic", &naturalGraphFormat},
}

var apptRe = regexp.MustCompile(`^insert (.+) (\d\d:\d\d)$`)

// naturalQueueFormat: "enqueue Name Surname" / "dequeue Name Surname"
// lines, then the remaining names "[…]".
var naturalQueueFormat = recordFormat{
	body:  []lineRule{opWord("enqueue ", "enqueue"), opWord("dequeue ", "dequeue")},
	close: truthRule("the final state", listLine),
}

// naturalBSTFormat: "insert Name HH:MM" / "delete Name" lines, then the
// pre-order list of (name, time) tuples.
var naturalBSTFormat = recordFormat{
	body: []lineRule{opWord("delete ", "delete"), {name: `"insert Name HH:MM"`, match: pattern(apptRe),
		read: func(r *record, _ string, m []string, _ int) error {
			r.in.Ops = append(r.in.Ops, Op{Name: "insert", Word: m[1], Time: m[2]})
			return nil
		}}},
	close: truthRule("the final state", listLine),
}

// naturalGraphFormat: "nodes: […]", "edges: [(a, b), …]", "source: X",
// then "traversal: […]" (the line an instance's Source names).
var naturalGraphFormat = recordFormat{
	fields: []lineRule{
		keyed("nodes:", func(r *record, v string, n int) error {
			raw, err := pyAt(r.p, n, v)
			if err != nil {
				return err
			}
			c, err := shapeStrings.Convert(raw, "nodes")
			if err != nil {
				return r.p.errAt(n, "%v", err)
			}
			for _, x := range c.([]any) {
				r.in.Names = append(r.in.Names, x.(string))
			}
			return nil
		}),
		keyed("edges:", func(r *record, v string, n int) error {
			raw, err := pyAt(r.p, n, v)
			if err != nil {
				return err
			}
			c, err := shapeStrPairs.Convert(raw, "edges")
			if err != nil {
				return r.p.errAt(n, "%v", err)
			}
			for _, e := range c.([]any) {
				pr := e.([]any)
				r.in.NameEdges = append(r.in.NameEdges, [2]string{pr[0].(string), pr[1].(string)})
			}
			return nil
		}),
		keyed("source:", func(r *record, v string, _ int) error { r.in.SourceName = v; return nil }),
		sourcedHere(truthField("traversal:")),
	},
}

// sourcedHere makes the line that rule reads the one an instance's Source
// points at: these records have always been located by their traversal
// line, and published instance lists keep their sources.
func sourcedHere(rule lineRule) lineRule {
	read := rule.read
	rule.read = func(r *record, v string, m []string, n int) error {
		r.start = n
		return read(r, v, m, n)
	}
	return rule
}
