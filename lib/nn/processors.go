package nn

import (
	"fmt"
	"image/color"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/ml/model"
	"github.com/narlab/narlab/lib/nn/engine"
)

// A Processor is one processor of the model, defined once: every list of
// processors (New's check, the CLI's help and flag checks, the sparse
// model's, the dm-clrs checkpoint mapping and export's refusals, the
// paper's columns, plots' colours, docs tables) is derived from the
// registered definitions (RegisterProcessor; docs/baselines.md, "Adding a
// processor").
type Processor struct {
	// Name is the processor's name, the reference's where it has one
	// (dm-clrs processors.get_processor_factory).
	Name string
	// Family groups a processor with its variants for the reader (docs
	// tables): "mpnn", "pgn", "gat", "memnet", …
	Family string
	// Paper is the CLRS paper's column for the processor (Tables 2 and 4:
	// "Deep Sets", "GAT", "Memnet", "MPNN", "PGN"), "" when it has none.
	Paper string
	// Color is the colour its series are drawn in: the paper's Figures 3
	// and 4 colours for its five models, shared with their variants.
	Color color.RGBA
	// Triplets: the step computes triplet edge latents [B,N,N,H] (returned
	// beside the node latents and read by the edge decoders); their
	// memory grows as N³, which the engine schedules by (engine.Traits).
	Triplets bool
	// InfBias: the decoders push the pointer and edge-mask logits of
	// non-edges below every edge's (the reference's *_mask processors).
	InfBias bool
	// Heads: the step attends with ProcessorOptions.Heads heads (the
	// reference's nb_heads, which only its attention processors read).
	Heads bool
	// LayerNorm: the step ends in a layer norm that
	// ProcessorOptions.LayerNorm switches (the reference's use_ln).
	LayerNorm bool
	// Step is one processor step.
	Step ProcessorStep
	// StepBytes estimates the bytes of one graph's processor step on
	// graphs of n nodes beyond the message tensors every processor has
	// ([N,N,H]): its memory estimate for evaluation's batch parts and the
	// unrolled programs' budget. Nil: nothing beyond them.
	StepBytes func(n int, o ProcessorOptions) int64
	// Reference is the layout of the processor's parameters in a dm-clrs
	// checkpoint; nil when dm-clrs cannot restore the processor (then
	// `narlab clrs export` refuses it, and no dm-clrs checkpoint loads as
	// it).
	Reference *ReferenceLayout
	// NoReference says why dm-clrs cannot restore the processor (when
	// Reference is nil), for the errors that refuse it.
	NoReference string
	// sparse is the processor's form on edge lists (NewSparse); nil: none.
	sparse *sparseProcessor
	// builtin: one of this package's own definitions (docs/baselines.md's
	// table lists them).
	builtin bool
}

// ProcessorOptions are the settings a processor step is built with, from
// the model's Config.
type ProcessorOptions struct {
	Hidden int // the latent size H
	// Heads is the number of attention heads (a processor with Heads;
	// at least 1, dividing Hidden): the reference's nb_heads.
	Heads int
	// TripletFeatures is the width of the triplet messages (a processor
	// with Triplets): the reference's nb_triplet_fts.
	TripletFeatures int
	// LayerNorm: the step ends in a layer norm (a processor with
	// LayerNorm): the reference's use_ln.
	LayerNorm bool
}

// ProcessorInput is what a processor step reads: the step's node features
// [B,N,H] (inputs and fed hints encoded), edge latents and graph features
// [B,H], the previous step's node latents [B,N,H], and the step's
// adjacency [B,N,N] (1 where i→j is an edge of the algorithm's graph or its
// hints, the identity included).
type ProcessorInput struct {
	Node   *Node
	Edge   EdgeLatents
	Graph  *Node
	Hidden *Node
	Adj    *Node
}

// ProcessorStep is one processor step: the new node latents [B,N,H] and,
// for a processor with Triplets, the triplet edge latents [B,N,N,H] (nil
// otherwise). Its variables are created under scope (the model's
// "processor" scope); their names are the processor's own, which its
// ReferenceLayout maps to dm-clrs's.
type ProcessorStep func(scope *model.Scope, in ProcessorInput, o ProcessorOptions) (hidden, triplets *Node)

// ReferenceLayout is where a processor's parameters live in a dm-clrs
// checkpoint (Haiku's names): LoadReference reads them there and
// ExportReference writes them there.
type ReferenceLayout struct {
	// Module is the processor's Haiku module under "net/", e.g.
	// "mpnn_aggr_clrs_processor".
	Module string
	// Linears is the number of linear layers directly under the module: a
	// checkpoint's processor is one of those of its module with as many
	// (dm-clrs checkpoints do not record the processor's name, so MPNN,
	// PGN and Deep Sets, which differ only in the adjacency they aggregate
	// over, share one layout).
	Linears int
	// PerHead: every attention head past the first adds one linear layer
	// (GATv2's attention vectors), so a module with Linears+k−1 of them
	// holds k heads.
	PerHead bool
	// Options, when set, reads the processor options a checkpoint's
	// parameters imply beyond the hidden size and the layer norm
	// (attention heads, triplet features) into o: shape returns a
	// module-relative parameter's shape ("linear_2|w"), nil when the
	// checkpoint lacks it, and linears is the number of the module's
	// linear layers.
	Options func(shape func(param string) []int, linears int, o *ProcessorOptions) error
	// Param maps a variable of the processor (its scope under the processor
	// scope, without the layer's own "dense" or "layer_normalization": "m1",
	// "triplet/t1", "ln"; and its leaf: "weights", "biases", "gain" or
	// "offset") to the module-relative name of its dm-clrs
	// parameter's module ("linear_1", "mlp/~/linear_0", "layer_norm") and
	// the constant narlab adds to its value (the gates' −3 bias, which
	// narlab keeps outside the variable); ok is false for a variable
	// dm-clrs does not have.
	Param func(path, leaf string) (module string, shift float64, ok bool)
}

var processorName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

var registry struct {
	sync.RWMutex
	byName map[string]Processor
}

// RegisterProcessor adds a processor definition: call it from an init
// function (a package's or a test file's). It panics on a definition
// without a lower-case name or a step, and on a name registered already.
func RegisterProcessor(p Processor) {
	switch {
	case !processorName.MatchString(p.Name):
		panic(fmt.Sprintf("nn: processor name %q: want lower-case letters, digits and _", p.Name))
	case p.Step == nil:
		panic(fmt.Sprintf("nn: processor %s has no step", p.Name))
	case p.Reference != nil && (p.Reference.Module == "" || p.Reference.Param == nil || p.Reference.Linears < 1):
		panic(fmt.Sprintf("nn: processor %s: a reference layout needs a module, its linear layers and a parameter map", p.Name))
	}
	registry.Lock()
	defer registry.Unlock()
	if registry.byName == nil {
		registry.byName = map[string]Processor{}
	}
	if _, ok := registry.byName[p.Name]; ok {
		panic(fmt.Sprintf("nn: processor %s registered twice", p.Name))
	}
	registry.byName[p.Name] = p
}

// LookupProcessor returns a processor's definition.
func LookupProcessor(name string) (Processor, bool) {
	registry.RLock()
	defer registry.RUnlock()
	p, ok := registry.byName[name]
	return p, ok
}

// RegisteredProcessors are the registered definitions, sorted by name.
func RegisteredProcessors() []Processor {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]Processor, 0, len(registry.byName))
	for _, p := range registry.byName {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Processors are the names of the processors New accepts, sorted.
func Processors() []string { return processorNames(func(Processor) bool { return true }) }

// SparseProcessors are the names of the processors NewSparse accepts:
// those with a form on edge lists, sorted.
func SparseProcessors() []string {
	return processorNames(func(p Processor) bool { return p.sparse != nil })
}

// ReferenceProcessors are the names of the processors dm-clrs can restore
// (a ReferenceLayout), sorted: the ones ExportReference writes and
// LoadReference reads.
func ReferenceProcessors() []string {
	return processorNames(func(p Processor) bool { return p.Reference != nil })
}

func processorNames(keep func(Processor) bool) []string {
	var out []string
	for _, p := range RegisteredProcessors() {
		if keep(p) {
			out = append(out, p.Name)
		}
	}
	return out
}

// lookupProcessor is LookupProcessor with an error that lists the choices.
func lookupProcessor(name string) (Processor, error) {
	if p, ok := LookupProcessor(name); ok {
		return p, nil
	}
	return Processor{}, fmt.Errorf("nn: unknown processor %q (want one of %v)", name, Processors())
}

// PaperModel is the CLRS paper's column name for a processor (Tables 2 and
// 4), or the name itself when the paper has no column for it.
func PaperModel(processor string) string {
	if p, ok := LookupProcessor(processor); ok && p.Paper != "" {
		return p.Paper
	}
	return processor
}

// ProcessorColor is the colour a processor's series are drawn in; name may
// also be a CLRS paper column ("MPNN", "Deep Sets"). ok is false for a name
// of neither.
func ProcessorColor(name string) (c color.RGBA, ok bool) {
	if p, ok := LookupProcessor(name); ok {
		return p.Color, true
	}
	for _, p := range RegisteredProcessors() {
		if p.Paper != "" && p.Paper == name {
			return p.Color, true
		}
	}
	return color.RGBA{}, false
}

// ProcessorTraits are a processor's properties the execution engine
// schedules by (engine.Plan); the zero traits for an unknown name.
func ProcessorTraits(processor string) engine.Traits {
	p, _ := LookupProcessor(processor)
	return engine.Traits{Triplets: p.Triplets}
}

// The CLRS paper's colours (Figures 3 and 4) and further ones for the
// processors it did not test.
var (
	colorMPNN     = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	colorPGN      = color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}
	colorDeepSets = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	colorGAT      = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	colorMemnet   = color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}
	colorGMPNN    = color.RGBA{R: 0xad, G: 0x49, B: 0x4a, A: 0xff}
	colorGPGN     = color.RGBA{R: 0x7b, G: 0x41, B: 0x73, A: 0xff}
	colorTMPNN    = color.RGBA{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff}
	colorTPGN     = color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}
	colorTGMPNN   = color.RGBA{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff}
	colorTGPGN    = color.RGBA{R: 0xbc, G: 0xbd, B: 0x22, A: 0xff}
)

// The built-in processors: the reference's (dm-clrs 2.0.3,
// processors.get_processor_factory), with its options (heads, triplet
// features, layer norm).
func init() {
	register := func(p Processor) {
		p.builtin = true
		RegisterProcessor(p)
	}
	type pgn struct {
		name, paper string
		color       color.RGBA
		adj         pgnAdjacency
		gated, tri  bool
		infBias     bool
		sparse      bool
	}
	for _, d := range []pgn{
		{name: "deepsets", paper: "Deep Sets", color: colorDeepSets, adj: adjSelf},
		{name: "mpnn", paper: "MPNN", color: colorMPNN, adj: adjFull, sparse: true},
		{name: "pgn", paper: "PGN", color: colorPGN, adj: adjData, sparse: true},
		{name: "pgn_mask", color: colorPGN, adj: adjData, infBias: true},
		{name: "gmpnn", color: colorGMPNN, adj: adjFull, gated: true, sparse: true},
		{name: "gpgn", color: colorGPGN, adj: adjData, gated: true, sparse: true},
		{name: "gpgn_mask", color: colorGPGN, adj: adjData, gated: true, infBias: true},
		{name: "triplet_mpnn", color: colorTMPNN, adj: adjFull, tri: true},
		{name: "triplet_pgn", color: colorTPGN, adj: adjData, tri: true},
		{name: "triplet_pgn_mask", color: colorTPGN, adj: adjData, tri: true, infBias: true},
		{name: "triplet_gmpnn", color: colorTGMPNN, adj: adjFull, tri: true, gated: true},
		{name: "triplet_gpgn", color: colorTGPGN, adj: adjData, tri: true, gated: true},
		{name: "triplet_gpgn_mask", color: colorTGPGN, adj: adjData, tri: true, gated: true, infBias: true},
	} {
		family := "mpnn"
		if d.adj == adjData {
			family = "pgn"
		} else if d.adj == adjSelf {
			family = "deepsets"
		}
		p := Processor{Name: d.name, Family: family, Paper: d.paper, Color: d.color, Triplets: d.tri, InfBias: d.infBias,
			LayerNorm: true, Step: pgnStep(d.adj, d.gated, d.tri), Reference: pgnReference(d.gated, d.tri)}
		if d.tri {
			p.StepBytes = tripletStepBytes
		}
		if d.sparse {
			p.sparse = &sparseProcessor{step: sparsePGNStep(d.gated), hoists: true}
		}
		register(p)
	}
	register(Processor{Name: "gat", Family: "gat", Paper: "GAT", Color: colorGAT, Heads: true, LayerNorm: true,
		Step: gatStep(false, false), Reference: gatReference(false), sparse: &sparseProcessor{step: sparseGATStep(false)}})
	register(Processor{Name: "gat_full", Family: "gat", Color: colorGAT, Heads: true, LayerNorm: true,
		Step: gatStep(false, true), Reference: gatReference(false)})
	register(Processor{Name: "gatv2", Family: "gat", Color: colorGAT, Heads: true, LayerNorm: true,
		Step: gatStep(true, false), Reference: gatReference(true), sparse: &sparseProcessor{step: sparseGATStep(true)}})
	register(Processor{Name: "gatv2_full", Family: "gat", Color: colorGAT, Heads: true, LayerNorm: true,
		Step: gatStep(true, true), Reference: gatReference(true)})
	const memnetDiffers = "narlab's Memnet differs from dm-clrs's on purpose (its embedding of the latents)"
	register(Processor{Name: "memnet", Family: "memnet", Paper: "Memnet", Color: colorMemnet,
		Step: memnetStep(false), StepBytes: memnetStepBytes, NoReference: memnetDiffers})
	register(Processor{Name: "memnet_full", Family: "memnet", Color: colorMemnet,
		Step: memnetStep(true), StepBytes: memnetStepBytes, NoReference: memnetDiffers})
}

// tripletStepBytes is the triplet messages' [N,N,N,T] (three of them live
// at once).
func tripletStepBytes(n int, o ProcessorOptions) int64 {
	N := int64(n)
	return 3 * N * N * N * int64(max(o.TripletFeatures, 1)) * 4
}

// linearName is Haiku's name of a module's i-th linear layer.
func linearName(i int) string {
	if i == 0 {
		return "linear"
	}
	return fmt.Sprintf("linear_%d", i)
}

// pgnReference is the layout of dm-clrs's PGN processor (also its MPNN and
// Deep Sets): its linears are numbered in the order they are built: m_1
// (receiver, narlab's m2), m_2 (sender, m1), m_e, m_g, o1, o2, the triplet
// layers t_1…t_g and o3, then the gates; the message MLP and layer norm
// are modules of their own.
func pgnReference(gated, triplets bool) *ReferenceLayout {
	order := map[string]int{"m2": 0, "m1": 1, "me": 2, "mg": 3, "o1": 4, "o2": 5}
	n := 6
	if triplets {
		for i, name := range []string{"t1", "t2", "t3", "te1", "te2", "te3", "tg", "o3"} {
			order["triplet/"+name] = n + i
		}
		n += 8
	}
	if gated {
		order["gate1"], order["gate2"], order["gate3"] = n, n+1, n+2
		n += 3
	}
	layout := &ReferenceLayout{Module: "mpnn_aggr_clrs_processor", Linears: n,
		Param: func(path, leaf string) (string, float64, bool) {
			switch path {
			case "msg_mlp_1":
				return "mlp/~/linear_0", 0, true
			case "msg_mlp_2":
				return "mlp/~/linear_1", 0, true
			case "ln":
				return "layer_norm", 0, true
			}
			i, ok := order[path]
			if !ok {
				return "", 0, false
			}
			shift := 0.0
			if path == "gate3" && leaf == "biases" {
				shift = 3
			}
			return linearName(i), shift, true
		}}
	if triplets {
		// t_1 (linear_6) is [2H, nb_triplet_fts].
		layout.Options = func(shape func(string) []int, _ int, o *ProcessorOptions) error {
			w := shape(linearName(order["triplet/t1"]) + "|w")
			if len(w) != 2 || w[1] < 1 {
				return fmt.Errorf("triplet layer %s|w has shape %v; want [2H, nb_triplet_fts]", linearName(order["triplet/t1"]), w)
			}
			o.TripletFeatures = w[1]
			return nil
		}
	}
	return layout
}

// gatReference is the layout of dm-clrs's GAT (m, skip, a_1 for row i, a_2
// for column j, a_e, a_g; each attention layer [·, nb_heads]) and GATv2 (m,
// skip, w_1 for column j: narlab's w2, w_2 for row i: w1, w_e, w_g, then
// one attention vector per head: narlab's a, a_head1, a_head2, …). The
// _full variants are the same modules.
func gatReference(v2 bool) *ReferenceLayout {
	module := "gat_aggr_clrs_processor"
	order := map[string]int{"values": 0, "skip": 1, "a1": 2, "a2": 3, "ae": 4, "ag": 5}
	if v2 {
		module = "gatv2_aggr_clrs_processor"
		order = map[string]int{"values": 0, "skip": 1, "w2": 2, "w1": 3, "we": 4, "wg": 5, "a": 6}
	}
	layout := &ReferenceLayout{Module: module, Linears: len(order), PerHead: v2,
		Param: func(path, _ string) (string, float64, bool) {
			if path == "ln" {
				return "layer_norm", 0, true
			}
			if h, ok := gatv2HeadIndex(path); ok && v2 {
				return linearName(order["a"] + h), 0, true
			}
			i, ok := order[path]
			return linearName(i), 0, ok
		},
		Options: func(shape func(string) []int, linears int, o *ProcessorOptions) error {
			if v2 {
				o.Heads = linears - len(order) + 1
				return nil
			}
			w := shape("linear_2|w") // a_1: [2H, nb_heads]
			if len(w) != 2 || w[1] < 1 {
				return fmt.Errorf("attention layer linear_2|w has shape %v; want [2H, nb_heads]", w)
			}
			o.Heads = w[1]
			return nil
		}}
	return layout
}

// gatv2HeadName is the scope of GATv2's attention vector of head h: "a"
// for the first, "a_head1", "a_head2", … for the others.
func gatv2HeadName(h int) string {
	if h == 0 {
		return "a"
	}
	return fmt.Sprintf("a_head%d", h)
}

// gatv2HeadIndex is the head of an attention vector's scope (gatv2HeadName).
func gatv2HeadIndex(path string) (int, bool) {
	if path == "a" {
		return 0, true
	}
	rest, ok := strings.CutPrefix(path, "a_head")
	if !ok {
		return 0, false
	}
	h, err := strconv.Atoi(rest)
	return h, err == nil && h > 0
}

// referenceCandidates are the processors whose reference layout is a
// module's with so many linear layers.
func referenceCandidates(module string, linears int) []string {
	return processorNames(func(p Processor) bool {
		r := p.Reference
		return r != nil && r.Module == module && (r.Linears == linears || (r.PerHead && linears > r.Linears))
	})
}

// referenceModules are the modules of the registered reference layouts,
// and the numbers of linear layers each comes with.
func referenceModules() map[string][]int {
	out := map[string][]int{}
	for _, p := range RegisteredProcessors() {
		if r := p.Reference; r != nil && !slices.Contains(out[r.Module], r.Linears) {
			out[r.Module] = append(out[r.Module], r.Linears)
		}
	}
	for _, ls := range out {
		slices.Sort(ls)
	}
	return out
}

// processorsTable is the markdown table of the built-in processors that
// docs/baselines.md holds (TestProcessorsDocTable keeps it current).
func processorsTable() string {
	var b strings.Builder
	b.WriteString("| processor | family | the CLRS paper's column | triplet edge latents | non-edges below (`inf_bias`) | sparse form (`NewSparse`) | dm-clrs restores it (`clrs export`) |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	yes := func(v bool) string {
		if v {
			return "yes"
		}
		return ""
	}
	for _, p := range RegisteredProcessors() {
		if !p.builtin {
			continue
		}
		ref := "no: " + p.NoReference
		if p.Reference != nil {
			ref = "yes (`" + p.Reference.Module + "`)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s |\n", p.Name, p.Family, p.Paper, yes(p.Triplets),
			yes(p.InfBias), yes(p.sparse != nil), ref)
	}
	return b.String()
}
