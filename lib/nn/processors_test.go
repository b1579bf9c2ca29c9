package nn_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/layers/norm"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn"
)

// The toy processors of "Adding a processor" (docs/baselines.md): an MPNN
// whose messages are summed over the adjacency instead of maximised,
// defined in this file alone. sum_mpnn declares no dm-clrs layout;
// sum_mpnn_ref declares one (a module of its own), so that export writes
// it and LoadReference reads it back.
func init() {
	nn.RegisterProcessor(nn.Processor{Name: "sum_mpnn", Family: "mpnn", Step: sumMPNN})
	nn.RegisterProcessor(nn.Processor{Name: "sum_mpnn_ref", Family: "mpnn", Step: sumMPNN,
		Reference: &nn.ReferenceLayout{Module: "sum_mpnn_clrs_processor", Linears: 4,
			Param: func(path, _ string) (string, float64, bool) {
				module, ok := map[string]string{"m1": "linear", "m2": "linear_1", "me": "linear_2", "o": "linear_3",
					"ln": "layer_norm"}[path]
				return module, 0, ok
			}}})
}

// sumMPNN is one step of the toy processor: messages relu(m1(z_i) + m2(z_j)
// + me(e_ij)) from sender i to receiver j, summed over the senders the
// adjacency allows, then a linear update of [z, sum] with layer norm.
func sumMPNN(scope *model.Scope, in nn.ProcessorInput, o nn.ProcessorOptions) (*Node, *Node) {
	H := o.Hidden
	z := Concatenate([]*Node{in.Node, in.Hidden}, -1) // [B,N,2H]
	m1 := nn.Dense(scope.At("m1"), z, true, H)
	m2 := nn.Dense(scope.At("m2"), z, true, H)
	me := in.Edge.Dense(scope.At("me"), z.Graph(), true, H) // [B,N,N,H]
	msgs := activation.Relu(Add(Add(InsertAxes(m1, 2), InsertAxes(m2, 1)), me))
	sum := ReduceSum(Mul(InsertAxes(in.Adj, -1), msgs), 1) // over senders i: [B,N,H]
	out := nn.Dense(scope.At("o"), Concatenate([]*Node{z, sum}, -1), true, H)
	return norm.LayerNorm(scope.At("ln"), activation.Relu(out), -1).Epsilon(1e-5).Done(), nil
}

// TestAddProcessor checks that a processor defined in a test file alone is
// a processor like the built-in ones: it is listed where processors are
// listed (and only where it qualifies), trains, saves and loads, and is
// exported as a dm-clrs checkpoint only when it declares a dm-clrs layout
// (read back by LoadReference as the same function).
func TestAddProcessor(t *testing.T) {
	if !slices.Contains(nn.Processors(), "sum_mpnn") || !slices.Contains(nn.Processors(), "sum_mpnn_ref") {
		t.Fatalf("the toy processors are not in nn.Processors(): %v", nn.Processors())
	}
	if slices.Contains(nn.ReferenceProcessors(), "sum_mpnn") || !slices.Contains(nn.ReferenceProcessors(), "sum_mpnn_ref") {
		t.Errorf("nn.ReferenceProcessors() = %v: want sum_mpnn_ref (a dm-clrs layout) and not sum_mpnn", nn.ReferenceProcessors())
	}
	if slices.Contains(nn.SparseProcessors(), "sum_mpnn") {
		t.Errorf("nn.SparseProcessors() lists sum_mpnn, which has no sparse form")
	}
	if got := nn.PaperModel("sum_mpnn"); got != "sum_mpnn" {
		t.Errorf("PaperModel(sum_mpnn) = %q: the paper has no column for it", got)
	}
	be, err := nn.Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	s, err := clrs.NewSampler("bfs", clrs.Length(5), clrs.Seed(2), clrs.NumSamples(4))
	if err != nil {
		t.Fatal(err)
	}
	fb, err := s.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"sum_mpnn", "sum_mpnn_ref"} {
		cfg := nn.DefaultConfig("bfs", name)
		cfg.Hidden, cfg.LearningRate = 8, 1e-2
		m, err := nn.New(be, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		// It trains: the loss of one batch trained on falls.
		var first, last float64
		for i := range 30 {
			l, err := m.TrainStep(fb)
			if err != nil {
				t.Fatal(err)
			}
			if math.IsNaN(l) {
				t.Fatalf("%s: loss NaN at step %d", name, i+1)
			}
			if i == 0 {
				first = l
			}
			last = l
		}
		if last > 0.7*first {
			t.Errorf("%s: loss %.4f after 30 steps on one batch, %.4f at the first: it does not learn", name, last, first)
		}
		want, err := m.Predict(fb)
		if err != nil {
			t.Fatal(err)
		}
		// It saves and loads.
		ckpt := filepath.Join(dir, name)
		if err := m.Save(ckpt); err != nil {
			t.Fatal(err)
		}
		loaded, err := nn.Load(be, ckpt)
		if err != nil {
			t.Fatal(err)
		}
		defer loaded.Close()
		samePredictions(t, name+" loaded", loaded, fb, want)
		// dm-clrs: only with a layout.
		pkl := filepath.Join(dir, name+".pkl")
		err = m.ExportReference(pkl)
		if name == "sum_mpnn" {
			if err == nil || !strings.Contains(err.Error(), "has no dm-clrs layout") {
				t.Errorf("sum_mpnn exported as a dm-clrs checkpoint (error %v): it declares no layout", err)
			}
			if _, serr := os.Stat(pkl); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("a refused export left %s (%v)", pkl, serr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("sum_mpnn_ref: %v", err)
		}
		ref, err := nn.LoadReference(be, pkl, nn.ReferenceOptions{})
		if err != nil {
			t.Fatalf("sum_mpnn_ref's export does not load back: %v", err)
		}
		defer ref.Close()
		if got := ref.Config().Processor; got != "sum_mpnn_ref" {
			t.Errorf("the export loads back as processor %s", got)
		}
		samePredictions(t, "sum_mpnn_ref through dm-clrs's layout", ref, fb, want)
	}
}

// samePredictions checks that m predicts want on fb.
func samePredictions(t *testing.T, what string, m *nn.Model, fb *clrs.Feedback, want nn.Predictions) {
	t.Helper()
	got, err := m.Predict(fb)
	if err != nil {
		t.Fatal(err)
	}
	for k, w := range want {
		if len(got[k]) != len(w) {
			t.Fatalf("%s: %s has %d values, want %d", what, k, len(got[k]), len(w))
		}
		for i := range w {
			if math.Abs(got[k][i]-w[i]) > 1e-5 {
				t.Fatalf("%s: %s[%d] = %v, want %v", what, k, i, got[k][i], w[i])
			}
		}
	}
}

// TestRegistryLists checks the lists derived from the built-in
// definitions: every processor New accepts builds, the processors dm-clrs
// restores are the reference's, the sparse ones those with an edge-list
// form, and the paper's five models have their columns and colours.
func TestRegistryLists(t *testing.T) {
	builtin := []string{"deepsets", "gat", "gatv2", "gmpnn", "gpgn", "gpgn_mask", "memnet", "memnet_full", "mpnn",
		"pgn", "pgn_mask", "triplet_gmpnn", "triplet_gpgn", "triplet_gpgn_mask", "triplet_mpnn", "triplet_pgn",
		"triplet_pgn_mask"}
	for _, p := range builtin {
		if _, ok := nn.LookupProcessor(p); !ok {
			t.Errorf("the reference's processor %s is not registered", p)
		}
	}
	if got := nn.SparseProcessors(); !slices.Equal(got, []string{"gat", "gatv2", "gmpnn", "gpgn", "mpnn", "pgn"}) {
		t.Errorf("SparseProcessors() = %v", got)
	}
	for _, p := range builtin {
		want := !strings.HasPrefix(p, "memnet")
		if got := slices.Contains(nn.ReferenceProcessors(), p); got != want {
			t.Errorf("%s: dm-clrs restores it: %v, want %v", p, got, want)
		}
	}
	for _, c := range []struct{ processor, paper string }{
		{"deepsets", "Deep Sets"}, {"gat", "GAT"}, {"memnet", "Memnet"}, {"mpnn", "MPNN"}, {"pgn", "PGN"},
		{"triplet_gmpnn", "triplet_gmpnn"},
	} {
		if got := nn.PaperModel(c.processor); got != c.paper {
			t.Errorf("PaperModel(%s) = %q, want %q", c.processor, got, c.paper)
		}
		if _, ok := nn.ProcessorColor(c.paper); !ok && c.paper != c.processor {
			t.Errorf("the paper's %s has no colour", c.paper)
		}
	}
	if a, _ := nn.ProcessorColor("gatv2"); a != mustColor(t, "gat") {
		t.Errorf("gatv2 is drawn in %v, GAT in %v: a variant shares its family's colour", a, mustColor(t, "gat"))
	}
	for _, p := range []string{"triplet_mpnn", "triplet_gmpnn", "triplet_pgn_mask"} {
		if !nn.ProcessorTraits(p).Triplets {
			t.Errorf("%s: no triplet trait", p)
		}
	}
	for _, bad := range []nn.Processor{{Name: "Bad Name", Step: sumMPNN}, {Name: "nostep"}, {Name: "mpnn", Step: sumMPNN},
		{Name: "halfref", Step: sumMPNN, Reference: &nn.ReferenceLayout{Module: "x_clrs_processor"}}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterProcessor(%+v) accepted", bad.Name)
				}
			}()
			nn.RegisterProcessor(bad)
		}()
	}
}

func mustColor(t *testing.T, p string) any {
	t.Helper()
	c, ok := nn.ProcessorColor(p)
	if !ok {
		t.Fatalf("%s has no colour", p)
	}
	return c
}

// TestEveryExportLoadsBack checks export against the registry: every
// processor that declares a dm-clrs layout exports a checkpoint that
// LoadReference reads back as the same processor and function, and every
// other is refused before anything is written.
func TestEveryExportLoadsBack(t *testing.T) {
	be, err := nn.Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	s, err := clrs.NewSampler("bfs", clrs.Length(4), clrs.Seed(3), clrs.NumSamples(2))
	if err != nil {
		t.Fatal(err)
	}
	fb, err := s.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, p := range nn.Processors() {
		cfg := nn.DefaultConfig("bfs", p)
		cfg.Hidden = 4
		m, err := nn.New(be, cfg)
		if err != nil {
			t.Fatal(err)
		}
		want, err := m.Predict(fb)
		if err != nil {
			t.Fatal(err)
		}
		pkl := filepath.Join(dir, p+".pkl")
		err = m.ExportReference(pkl)
		m.Close()
		if !slices.Contains(nn.ReferenceProcessors(), p) {
			if err == nil || !strings.Contains(err.Error(), p+" has no dm-clrs layout") {
				t.Errorf("%s: exported (error %v), but dm-clrs cannot restore it", p, err)
			}
			if _, serr := os.Stat(pkl); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("%s: a refused export left %s", p, pkl)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		loaded, err := nn.LoadReference(be, pkl, nn.ReferenceOptions{Processor: p})
		if err != nil {
			t.Errorf("%s: its export does not load back: %v", p, err)
			continue
		}
		if got := loaded.Config().Processor; got != p {
			t.Errorf("%s: loads back as %s", p, got)
		}
		samePredictions(t, p+" exported and loaded", loaded, fb, want)
		loaded.Close()
	}
}
