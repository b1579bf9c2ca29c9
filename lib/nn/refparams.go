package nn

import (
	"fmt"
	"strings"
)

// The parameter layout of dm-clrs's BaselineModel (Haiku module and
// parameter names), which refckpt.go reads and writes and
// TestReferenceTrainingSteps loads the reference's parameters through.

// referenceParamName maps a narlab variable path to the reference's
// haiku parameter ("module|name") and the constant narlab adds to it
// (the gate's −3 bias, which narlab keeps outside the variable).
func referenceParamName(path, processor string) (string, float64) {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	leaf := map[string]string{"weights": "w", "biases": "b", "gain": "scale", "offset": "offset"}[parts[len(parts)-1]]
	const encdec = "net/~_construct_encoders_decoders/algo_0_"
	linear := func(i int) string {
		if i == 0 {
			return "linear"
		}
		return fmt.Sprintf("linear_%d", i)
	}
	switch {
	case strings.HasPrefix(parts[0], "enc_"):
		probe := strings.TrimPrefix(strings.TrimPrefix(parts[0], "enc_input_"), "enc_hint_")
		i := 0
		if parts[1] == "2" { // an edge pointer's second encoder
			i = 1
		}
		return encdec + probe + "_enc_" + linear(i) + "|" + leaf, 0
	case strings.HasPrefix(parts[0], "dec_"):
		probe := strings.TrimPrefix(strings.TrimPrefix(parts[0], "dec_output_"), "dec_hint_")
		i := map[string]int{"l": 0, "p1": 0, "p2": 1, "p3": 2, "p4": 3, "p5": 4, "e1": 0, "e2": 1, "e3": 2,
			"g1": 0, "g2": 1, "g3": 2}[parts[1]]
		return encdec + probe + "_dec_" + linear(i) + "|" + leaf, 0
	}
	name := parts[1]
	switch processor {
	case "gat":
		// dm-clrs GAT: m (values), skip, a_1 (row i), a_2 (column j), a_e, a_g.
		order := map[string]int{"values": 0, "skip": 1, "a1": 2, "a2": 3, "ae": 4, "ag": 5}
		if name == "ln" {
			return "net/gat_aggr_clrs_processor/layer_norm|" + leaf, 0
		}
		return "net/gat_aggr_clrs_processor/" + linear(order[name]) + "|" + leaf, 0
	case "gatv2":
		// dm-clrs GATv2: m, skip, w_1 (column j, narlab's w2), w_2 (row i,
		// w1), w_e, w_g, then the head's attention vector.
		order := map[string]int{"values": 0, "skip": 1, "w2": 2, "w1": 3, "we": 4, "wg": 5, "a": 6}
		if name == "ln" {
			return "net/gatv2_aggr_clrs_processor/layer_norm|" + leaf, 0
		}
		return "net/gatv2_aggr_clrs_processor/" + linear(order[name]) + "|" + leaf, 0
	}
	// The processor (dm-clrs PGN, also for MPNN and Deep Sets): its linears
	// are numbered in the order they are built: m_1 (receiver, narlab's
	// m2), m_2 (sender, m1), m_e, m_g, o1, o2, the triplet layers t_1…t_g
	// and o3, then the gates.
	const proc = "net/mpnn_aggr_clrs_processor/"
	if name == "triplet" {
		name = "triplet/" + parts[2]
	}
	order := map[string]int{"m2": 0, "m1": 1, "me": 2, "mg": 3, "o1": 4, "o2": 5,
		"triplet/t1": 6, "triplet/t2": 7, "triplet/t3": 8, "triplet/te1": 9, "triplet/te2": 10, "triplet/te3": 11,
		"triplet/tg": 12, "triplet/o3": 13}
	gates := 6
	if pgnKinds[processor].triplets {
		gates = 14
	}
	order["gate1"], order["gate2"], order["gate3"] = gates, gates+1, gates+2
	switch name {
	case "msg_mlp_1":
		return proc + "mlp/~/linear_0|" + leaf, 0
	case "msg_mlp_2":
		return proc + "mlp/~/linear_1|" + leaf, 0
	case "ln":
		return proc + "layer_norm|" + leaf, 0
	}
	shift := 0.0
	if name == "gate3" && leaf == "b" {
		shift = 3
	}
	return proc + linear(order[name]) + "|" + leaf, shift
}
