package graphtext

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// The twelve spectral tasks of "Lost in Serialization" (App. H, Table 7),
// by the names narlab uses everywhere (JSON keys, MLflow metric names).
// A is the adjacency matrix with eigenvalues λ₁ ≥ … ≥ λₙ, L = D − A the
// combinatorial Laplacian with eigenvalues 0 = μ₁ ≤ … ≤ μₙ, and logs are
// natural unless [SpectralOptions] say otherwise.
const (
	GraphEnergy              = "graph_energy"               // Σ|λᵢ|
	NComponents              = "n_components"               // multiplicity of μ = 0
	SumLambdaSquared         = "sum_lambda_squared"         // Σλᵢ² = tr A²
	AlgebraicConnectivity    = "algebraic_connectivity"     // μ₂ (or ν₂ of L_sym)
	EstradaIndex             = "estrada_index"              // Σ exp λᵢ
	LaplacianEnergy          = "laplacian_energy"           // Σ|μᵢ − tr L / n|
	NaturalConnectivity      = "natural_connectivity"       // ln(mean exp λᵢ)
	SpectralGap              = "spectral_gap"               // λ₁ − λ₂ (or μ₂, ν₂)
	SpectralRadius           = "spectral_radius"            // max |λᵢ|
	EigenvectorCentralityTop = "eigenvector_centrality_top" // largest entry of the unit principal eigenvector
	HeatTraceT1              = "heat_trace_t1"              // Σ exp(−t μᵢ), t = 1
	VonNeumannEntropy        = "von_neumann_entropy"        // −Σ pᵢ ln pᵢ, pᵢ = μᵢ / Σμ
)

// SpectralTasks lists the twelve spectral tasks in the paper's Table 7
// order: Easy, then Medium, then Hard.
var SpectralTasks = []string{
	GraphEnergy, NComponents, SumLambdaSquared,
	AlgebraicConnectivity, EstradaIndex, LaplacianEnergy, NaturalConnectivity, SpectralGap, SpectralRadius,
	EigenvectorCentralityTop, HeatTraceT1, VonNeumannEntropy,
}

// SpectralDifficulties lists the difficulty groups of the spectral tasks in
// order.
var SpectralDifficulties = []string{"Easy", "Medium", "Hard"}

// SpectralDifficulty returns the paper's difficulty group of a spectral
// task ("Easy", "Medium" or "Hard"), or "" for an unknown task.
func SpectralDifficulty(task string) string {
	switch task {
	case GraphEnergy, NComponents, SumLambdaSquared:
		return "Easy"
	case AlgebraicConnectivity, EstradaIndex, LaplacianEnergy, NaturalConnectivity, SpectralGap, SpectralRadius:
		return "Medium"
	case EigenvectorCentralityTop, HeatTraceT1, VonNeumannEntropy:
		return "Hard"
	}
	return ""
}

// IsSpectralTask reports whether task is one of [SpectralTasks].
func IsSpectralTask(task string) bool { return SpectralDifficulty(task) != "" }

// Matrix names the matrix a spectral quantity is computed from.
type Matrix string

const (
	// AdjacencyMatrix is A.
	AdjacencyMatrix Matrix = "adjacency"
	// LaplacianMatrix is the combinatorial Laplacian L = D − A.
	LaplacianMatrix Matrix = "laplacian"
	// NormalizedLaplacian is L_sym = I − D^{-1/2} A D^{-1/2}; an isolated
	// node gets an all-zero row, as in NetworkX.
	NormalizedLaplacian Matrix = "normalized_laplacian"
)

// SpectralOptions settles the choices the paper leaves open. The zero value
// gives the defaults of the issue: μ₂(L), λ₁ − λ₂ of A, tr exp(−L),
// natural log, zero tolerance 1e-9. [SpectralOptions.Params] lists the
// choices for logging.
type SpectralOptions struct {
	// AlgebraicMatrix is the matrix whose second-smallest eigenvalue is the
	// algebraic connectivity: LaplacianMatrix (default, App. H's text) or
	// NormalizedLaplacian (what the quoted G1 outputs assume).
	AlgebraicMatrix Matrix
	// GapMatrix picks the spectral gap: AdjacencyMatrix (default, λ₁ − λ₂),
	// LaplacianMatrix (μ₂) or NormalizedLaplacian (ν₂).
	GapMatrix Matrix
	// HeatMatrix is the Laplacian of the heat trace: LaplacianMatrix
	// (default) or NormalizedLaplacian.
	HeatMatrix Matrix
	// HeatTime is t in tr exp(−tL); default 1.
	HeatTime float64
	// EntropyLogBase is the log base of the von Neumann entropy; default e.
	EntropyLogBase float64
	// ZeroTol is the tolerance under which Laplacian eigenvalues count as
	// zero (and are clamped to 0); default 1e-9.
	ZeroTol float64
}

func (o SpectralOptions) withDefaults() (SpectralOptions, error) {
	if o.AlgebraicMatrix == "" {
		o.AlgebraicMatrix = LaplacianMatrix
	}
	if o.GapMatrix == "" {
		o.GapMatrix = AdjacencyMatrix
	}
	if o.HeatMatrix == "" {
		o.HeatMatrix = LaplacianMatrix
	}
	if o.HeatTime == 0 {
		o.HeatTime = 1
	}
	if o.EntropyLogBase == 0 {
		o.EntropyLogBase = math.E
	}
	if o.ZeroTol == 0 {
		o.ZeroTol = 1e-9
	}
	switch {
	case o.AlgebraicMatrix != LaplacianMatrix && o.AlgebraicMatrix != NormalizedLaplacian:
		return o, fmt.Errorf("graphtext: algebraic connectivity matrix %q; want %q or %q", o.AlgebraicMatrix, LaplacianMatrix, NormalizedLaplacian)
	case o.GapMatrix != AdjacencyMatrix && o.GapMatrix != LaplacianMatrix && o.GapMatrix != NormalizedLaplacian:
		return o, fmt.Errorf("graphtext: spectral gap matrix %q; want %q, %q or %q", o.GapMatrix, AdjacencyMatrix, LaplacianMatrix, NormalizedLaplacian)
	case o.HeatMatrix != LaplacianMatrix && o.HeatMatrix != NormalizedLaplacian:
		return o, fmt.Errorf("graphtext: heat trace matrix %q; want %q or %q", o.HeatMatrix, LaplacianMatrix, NormalizedLaplacian)
	case !(o.HeatTime > 0) || math.IsInf(o.HeatTime, 0):
		return o, fmt.Errorf("graphtext: heat trace time %v; want a finite t > 0", o.HeatTime)
	case !(o.EntropyLogBase > 0) || o.EntropyLogBase == 1 || math.IsInf(o.EntropyLogBase, 0):
		return o, fmt.Errorf("graphtext: entropy log base %v; want a finite base > 0 other than 1", o.EntropyLogBase)
	case !(o.ZeroTol > 0) || o.ZeroTol >= 1:
		return o, fmt.Errorf("graphtext: zero tolerance %v; want 0 < tol < 1", o.ZeroTol)
	}
	return o, nil
}

// Params returns the options, defaults filled in, as run parameters
// (spectral.algebraic_matrix, spectral.gap_matrix, spectral.heat_matrix,
// spectral.heat_time, spectral.entropy_log_base, spectral.zero_tol).
func (o SpectralOptions) Params() map[string]string {
	d, _ := o.withDefaults()
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return map[string]string{
		"spectral.algebraic_matrix": string(d.AlgebraicMatrix),
		"spectral.gap_matrix":       string(d.GapMatrix),
		"spectral.heat_matrix":      string(d.HeatMatrix),
		"spectral.heat_time":        f(d.HeatTime),
		"spectral.entropy_log_base": f(d.EntropyLogBase),
		"spectral.zero_tol":         f(d.ZeroTol),
	}
}

// Spectrum holds the eigen-decompositions the spectral tasks need.
type Spectrum struct {
	// Adj are the eigenvalues of A, ascending.
	Adj []float64
	// Lap are the eigenvalues of L = D − A, ascending, with |μ| < ZeroTol
	// clamped to 0.
	Lap []float64
	// NormLap are the eigenvalues of L_sym, ascending, clamped like Lap.
	NormLap []float64
	// TopCentrality is max_v ‖P e_v‖, P the orthogonal projector onto the
	// eigenspace of λ₁ (eigenvalues within ZeroTol·max(1, |λ₁|) of λ₁).
	// For a simple λ₁ it is the largest entry of the unit Perron vector;
	// for a repeated one it is the largest such entry over all unit
	// vectors of the eigenspace, so it does not depend on the basis an
	// eigensolver happens to return.
	TopCentrality float64
}

// NewSpectrum computes the spectra of an undirected graph. Directed graphs
// and non-positive weights are rejected; weighted graphs use their weights.
func NewSpectrum(g *Graph, opts SpectralOptions) (*Spectrum, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, fmt.Errorf("graphtext: spectral tasks need a graph, got nil")
	}
	if g.Directed {
		return nil, fmt.Errorf("graphtext: spectral tasks need an undirected graph; this one is directed")
	}
	if err := g.Validate(false); err != nil {
		return nil, err
	}
	for i, e := range g.Edges {
		if g.Weighted && !(e.W > 0) {
			return nil, fmt.Errorf("graphtext: edge %d (%d, %d) has weight %v; spectral tasks need positive weights", i, e.U, e.V, e.W)
		}
	}
	n := g.N
	adj := g.Adjacency()
	a := mat.NewSymDense(n, nil)
	lap := mat.NewSymDense(n, nil)
	nl := mat.NewSymDense(n, nil)
	deg := make([]float64, n)
	for i := range n {
		for j := range n {
			deg[i] += adj[i][j]
		}
	}
	for i := range n {
		for j := i; j < n; j++ {
			a.SetSym(i, j, adj[i][j])
			l := -adj[i][j]
			if i == j {
				l += deg[i]
			}
			lap.SetSym(i, j, l)
			if deg[i] > 0 && deg[j] > 0 {
				nl.SetSym(i, j, l/math.Sqrt(deg[i]*deg[j]))
			}
		}
	}
	var s Spectrum
	var es mat.EigenSym
	if !es.Factorize(a, true) {
		return nil, fmt.Errorf("graphtext: adjacency eigendecomposition did not converge")
	}
	s.Adj = es.Values(nil)
	var vec mat.Dense
	es.VectorsTo(&vec)
	top := s.Adj[n-1]
	tol := o.ZeroTol * math.Max(1, math.Abs(top))
	best := 0.0
	for v := range n {
		p := 0.0
		for k := n - 1; k >= 0 && top-s.Adj[k] <= tol; k-- {
			x := vec.At(v, k)
			p += x * x
		}
		best = math.Max(best, math.Sqrt(p))
	}
	s.TopCentrality = best
	if !es.Factorize(lap, false) {
		return nil, fmt.Errorf("graphtext: Laplacian eigendecomposition did not converge")
	}
	s.Lap = clampZero(es.Values(nil), o.ZeroTol)
	if !es.Factorize(nl, false) {
		return nil, fmt.Errorf("graphtext: normalized Laplacian eigendecomposition did not converge")
	}
	s.NormLap = clampZero(es.Values(nil), o.ZeroTol)
	return &s, nil
}

func clampZero(x []float64, tol float64) []float64 {
	for i, v := range x {
		if math.Abs(v) < tol {
			x[i] = 0
		}
	}
	return x
}

// second returns the second-smallest value of an ascending spectrum (0 for
// a one-node graph).
func second(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	return x[1]
}

// Values returns the twelve task values, keyed by task name.
func (s *Spectrum) Values(opts SpectralOptions) (map[string]float64, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	n := len(s.Adj)
	lam, mu := s.Adj, s.Lap
	pick := func(m Matrix) []float64 {
		if m == NormalizedLaplacian {
			return s.NormLap
		}
		return s.Lap
	}
	var energy, sq, estrada, shifted, trL float64
	lmax := lam[n-1]
	for _, l := range lam {
		energy += math.Abs(l)
		sq += l * l
		estrada += math.Exp(l)
		shifted += math.Exp(l - lmax)
	}
	comps := 0
	for _, m := range mu {
		trL += m
		if m == 0 {
			comps++
		}
	}
	var lapEnergy, entropy float64
	avg := trL / float64(n)
	for _, m := range mu {
		lapEnergy += math.Abs(m - avg)
		if m > 0 && trL > 0 {
			p := m / trL
			entropy -= p * math.Log(p)
		}
	}
	entropy /= math.Log(o.EntropyLogBase)
	var heat float64
	for _, m := range pick(o.HeatMatrix) {
		heat += math.Exp(-o.HeatTime * m)
	}
	gap := 0.0
	switch o.GapMatrix {
	case AdjacencyMatrix:
		if n > 1 {
			gap = lam[n-1] - lam[n-2]
		}
	default:
		gap = second(pick(o.GapMatrix))
	}
	radius := math.Max(math.Abs(lam[0]), math.Abs(lmax))
	return map[string]float64{
		GraphEnergy:              energy,
		NComponents:              float64(comps),
		SumLambdaSquared:         sq,
		AlgebraicConnectivity:    second(pick(o.AlgebraicMatrix)),
		EstradaIndex:             estrada,
		LaplacianEnergy:          lapEnergy,
		NaturalConnectivity:      lmax + math.Log(shifted/float64(n)),
		SpectralGap:              gap,
		SpectralRadius:           radius,
		EigenvectorCentralityTop: s.TopCentrality,
		HeatTraceT1:              heat,
		VonNeumannEntropy:        entropy,
	}, nil
}

// Spectral returns the twelve spectral task values of g keyed by the names
// in [SpectralTasks]: the ground truth of the spectral tasks.
func Spectral(g *Graph, opts SpectralOptions) (map[string]float64, error) {
	s, err := NewSpectrum(g, opts)
	if err != nil {
		return nil, err
	}
	return s.Values(opts)
}

// SpectralValue returns one spectral task's value for g.
func SpectralValue(g *Graph, task string, opts SpectralOptions) (float64, error) {
	if !IsSpectralTask(task) {
		return 0, fmt.Errorf("graphtext: unknown spectral task %q; want one of %v", task, SpectralTasks)
	}
	v, err := Spectral(g, opts)
	if err != nil {
		return 0, err
	}
	return v[task], nil
}
