package nn

import (
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
)

// memnetStep is the memory network's processor step (memnet), over the
// step's adjacency, or every pair of nodes (full: memnet_full).
func memnetStep(full bool) ProcessorStep {
	return func(scope *model.Scope, in ProcessorInput, o ProcessorOptions) (*Node, *Node) {
		adj := in.Adj
		if full {
			B, N := adj.Shape().Dimensions[0], adj.Shape().Dimensions[1]
			adj = Ones(adj.Graph(), shapeF32(B, N, N))
		}
		return memnet(scope, in.Node, in.Edge.full(adj.Graph()), in.Graph, adj, o.Hidden), nil
	}
}

// memnetStepBytes are the memories and their lookups (three [N, slots,
// embedding] tensors).
func memnetStepBytes(n int, _ ProcessorOptions) int64 {
	return 3 * int64(n) * int64(max(memnetSlots, n+1)) * memnetEmbedding * 4
}

// Memory-network sizes of the reference: embedding 16, 128 memory slots,
// one hop.
const (
	memnetEmbedding = 16
	memnetSlots     = 128
)

// memnet is one End-to-End Memory Network step (Sukhbaatar et al. 2015) as
// the CLRS paper uses it: every node, plus one extra query for the graph
// features, reads its own row of edge latents as memories. For node i the
// query is u_i = B·x_i (x = node features; the previous latents are not
// used), the memories m_ik = A·e_ik + c_k (a learnt per-slot vector, zero at
// start), the outputs o_ik = C·e_ik, and the answer is
// W·relu(H·(u_i + Σ_k softmax_k(m_ik·u_i) o_ik)). Edge latents are zeroed
// where adj is 0 (pass all ones for the unmasked variant). The softmax runs
// over all 128 slots, the unused ones holding only their learnt vector, as
// in the reference. The graph query's answer is added to every node's.
//
// The reference embeds each latent coordinate as a "word" through a table
// lookup of its value truncated to an integer, which passes no gradient to
// the encoders; narlab embeds the continuous latents with linear maps (the
// position-weighted sum of word embeddings is itself linear in a one-hot
// coding), so the encoders learn through the processor.
//
// The graph query's memory row is all padding, so it reads nothing and its
// answer reduces to W·relu(H·B·g); it is computed on its own rather than
// sliced out of a padded batch (the pure-Go backend has no Pad op, which
// the gradient of a slice needs).
func memnet(scope *model.Scope, nodeF, edgeF, graphF, adj *Node, hidden int) *Node {
	g := nodeF.Graph()
	dims := nodeF.Shape().Dimensions
	B, N := dims[0], dims[1]
	stories := Mul(edgeF, InsertAxes(adj, -1)) // [B,N,N,H]
	embedQ, embedM, embedO := scope.At("query_embedding"), scope.At("memory_embedding"), scope.At("output_embedding")
	u := Dense(embedQ, nodeF, false, memnetEmbedding)     // [B,N,E]
	mem := Dense(embedM, stories, false, memnetEmbedding) // [B,N,N,E]
	out := Dense(embedO, stories, false, memnetEmbedding) // [B,N,N,E]
	// Slots: N edge rows, then the graph row's padding column, then the
	// reference's unused slots up to 128.
	total := max(memnetSlots, N+1)
	zeros := Zeros(g, shapeF32(B, N, total-N, memnetEmbedding))
	mem = Concatenate([]*Node{mem, zeros}, 2)
	out = Concatenate([]*Node{out, zeros}, 2)
	slots := scope.At("memory").WithInitializer(initializer.Zero).
		VariableWithShape("contents", shapes.Make(dtypes.Float32, memnetSlots, memnetEmbedding)).NodeValue(g)
	if extra := total - memnetSlots; extra > 0 {
		// Graphs larger than the reference's memory: the extra slots carry no
		// learnt vector.
		slots = Concatenate([]*Node{slots, Zeros(g, shapeF32(extra, memnetEmbedding))}, 0)
	}
	mem = Add(mem, InsertAxes(slots, 0, 0))

	probs := Softmax(Einsum("bike,bie->bik", mem, u), -1)
	read := Einsum("bik,bike->bie", probs, out)
	answer := func(x *Node) *Node {
		h := Dense(scope.At("output_linear"), x, false, hidden)
		return Dense(scope.At("answer"), jaxRelu(h), false, hidden)
	}
	nodes := answer(Add(u, read))                                     // [B,N,H]
	graphRow := answer(Dense(embedQ, graphF, false, memnetEmbedding)) // [B,H]
	return Add(nodes, InsertAxes(graphRow, 1))
}
