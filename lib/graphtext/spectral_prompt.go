package graphtext

import (
	"fmt"
	"math"
	"strconv"
)

// SpectralPrompt words a spectral task on g in the form the serialization
// notes recommend (§6.2; the paper does not print its spectral prompts):
//
//	The task is to determine the <quantity> of the graph. <definition>
//	<graph in Erdős text, E0> Question: What is the <quantity> of the graph?
//	You need to format your answer as a float number.
//
// The definition names the matrix and the choices of opts (the matrix of
// the algebraic connectivity, spectral gap and heat trace, the heat time,
// the entropy's log base), so the question asks for exactly the value that
// [Spectral] computes with the same options. Wrap the result in
// [QueryTemplate] for G1's \boxed{} instruction.
func SpectralPrompt(g *Graph, task string, opts SpectralOptions) (string, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return "", err
	}
	if g.Directed {
		return "", fmt.Errorf("graphtext: spectral task %s: the graph is directed; spectral tasks take undirected graphs", task)
	}
	name, def, err := spectralDefinition(task, o)
	if err != nil {
		return "", err
	}
	text, err := g.Serialize(SyntaxErdos, EdgeErdos, EncodeOptions{})
	if err != nil {
		return "", err
	}
	return "The task is to determine the " + name + " of the graph. " + def + " " + text +
		" Question: What is the " + name + " of the graph? " + KindFloat.FormatSentence(), nil
}

func matrixPhrase(m Matrix) string {
	switch m {
	case NormalizedLaplacian:
		return "normalized Laplacian matrix I − D^(-1/2) A D^(-1/2) (D the diagonal degree matrix, A the adjacency matrix)"
	case LaplacianMatrix:
		return "Laplacian matrix L = D − A (D the diagonal degree matrix, A the adjacency matrix)"
	}
	return "adjacency matrix A"
}

func spectralDefinition(task string, o SpectralOptions) (name, def string, err error) {
	switch task {
	case GraphEnergy:
		return "graph energy", "The graph energy is the sum of the absolute values of the eigenvalues of the adjacency matrix.", nil
	case NComponents:
		return "number of connected components", "It equals the multiplicity of the eigenvalue 0 of the Laplacian matrix L = D − A (D the diagonal degree matrix, A the adjacency matrix).", nil
	case SumLambdaSquared:
		return "sum of squared eigenvalues", "It is the sum of the squares of the eigenvalues of the adjacency matrix.", nil
	case AlgebraicConnectivity:
		return "algebraic connectivity", "The algebraic connectivity is the second smallest eigenvalue of the " + matrixPhrase(o.AlgebraicMatrix) + ".", nil
	case EstradaIndex:
		return "Estrada index", "The Estrada index is the sum of exp(λ) over the eigenvalues λ of the adjacency matrix.", nil
	case LaplacianEnergy:
		return "Laplacian energy", "The Laplacian energy is the sum of |μ − 2m/n| over the eigenvalues μ of the Laplacian matrix L = D − A, where m is the number of edges and n the number of nodes.", nil
	case NaturalConnectivity:
		return "natural connectivity", "The natural connectivity is the natural logarithm of the mean of exp(λ) over the eigenvalues λ of the adjacency matrix.", nil
	case SpectralGap:
		if o.GapMatrix == AdjacencyMatrix {
			return "spectral gap", "The spectral gap is the difference between the largest and the second largest eigenvalue of the adjacency matrix.", nil
		}
		return "spectral gap", "The spectral gap is the second smallest eigenvalue of the " + matrixPhrase(o.GapMatrix) + ".", nil
	case SpectralRadius:
		return "spectral radius", "The spectral radius is the largest absolute value of an eigenvalue of the adjacency matrix.", nil
	case EigenvectorCentralityTop:
		return "largest eigenvector centrality", "The eigenvector centrality of a node is its entry in the principal eigenvector of the adjacency matrix, scaled to unit Euclidean length with non-negative entries; the task asks for the largest entry.", nil
	case HeatTraceT1:
		return "heat trace", "The heat trace at time t = " + strconv.FormatFloat(o.HeatTime, 'g', -1, 64) + " is the sum of exp(−t μ) over the eigenvalues μ of the " + matrixPhrase(o.HeatMatrix) + ".", nil
	case VonNeumannEntropy:
		base := "the natural logarithm"
		if o.EntropyLogBase != math.E {
			base = "the logarithm to base " + strconv.FormatFloat(o.EntropyLogBase, 'g', -1, 64)
		}
		return "von Neumann entropy", "The von Neumann entropy is −Σ p log p over p = μ / (sum of all μ), for the eigenvalues μ of the Laplacian matrix L = D − A, with " + base + " and 0 log 0 = 0.", nil
	}
	return "", "", fmt.Errorf("graphtext: unknown spectral task %q; want one of %v", task, SpectralTasks)
}
