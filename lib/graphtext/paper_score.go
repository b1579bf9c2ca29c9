package graphtext

// G1AnswerType returns the answer_type G1's checker reads for a task:
// integer, float, bool, node_list, ordered_node_list, edge_list or
// ordered_edge_list (the Erdős data's field; the checker treats the node
// and the edge kinds alike).
func G1AnswerType(t *Task) string {
	switch t.Kind {
	case KindInt:
		return "integer"
	case KindFloat:
		return "float"
	case KindBool:
		return "bool"
	case KindNodeSet:
		return "node_list"
	case KindNodeSeq:
		return "ordered_node_list"
	case KindEdgeSet:
		if t.Ordered {
			return "ordered_edge_list"
		}
		return "edge_list"
	}
	return ""
}
