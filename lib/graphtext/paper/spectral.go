package paper

// SpectralModels are the models of "Lost in Serialization"'s spectral
// study, in the column order of its Table 10.
var SpectralModels = [4]string{"G1-3B", "G1-7B", "Qwen-3B", "Qwen-7B"}

// SpectralRow is one row of the paper's Table 10: a spectral task and
// its four metrics for the four [SpectralModels].
type SpectralRow struct {
	Task                                string
	NRMSEStd, NRMSERange, SMAPE, RelMAE [4]float64
}

// SpectralTable10 transcribes Table 10 of "Lost in Serialization"
// (App. H; serialization notes §5.6), rows in the paper's order, sMAPE on
// the 0–100 scale. Table 1, Table 9's std columns, the win counts and the
// global errors 0.214/0.232/0.283/0.318 are derived from it (see
// lib/metrics' tests).
var SpectralTable10 = []SpectralRow{
	{Task: "algebraic_connectivity", NRMSEStd: [4]float64{3.14, 1.11, 2.33, 0.96}, NRMSERange: [4]float64{0.93, 0.32, 0.79, 0.27}, SMAPE: [4]float64{76.71, 65.10, 67.82, 58.81}, RelMAE: [4]float64{3.13, 0.99, 1.55, 0.75}},
	{Task: "eigenvector_centrality_top", NRMSEStd: [4]float64{1.38, 1.14, 1.69, 1.43}, NRMSERange: [4]float64{0.33, 0.28, 0.41, 0.35}, SMAPE: [4]float64{61.65, 48.35, 73.68, 79.53}, RelMAE: [4]float64{1.23, 0.99, 1.63, 1.24}},
	{Task: "estrada_index", NRMSEStd: [4]float64{1035.37, 6.40, 6296.12, 50.10}, NRMSERange: [4]float64{307.00, 1.89, 1963.05, 14.79}, SMAPE: [4]float64{44.87, 42.19, 48.64, 48.44}, RelMAE: [4]float64{123.09, 4.29, 1227.62, 26.64}},
	{Task: "graph_energy", NRMSEStd: [4]float64{21.88, 18.20, 13.13, 1.48}, NRMSERange: [4]float64{5.08, 4.22, 3.35, 0.34}, SMAPE: [4]float64{59.10, 36.76, 49.43, 23.04}, RelMAE: [4]float64{10.96, 4.34, 7.89, 1.04}},
	{Task: "heat_trace_t1", NRMSEStd: [4]float64{2.87, 2.56, 83.63, 2.61}, NRMSERange: [4]float64{0.84, 0.75, 24.57, 0.76}, SMAPE: [4]float64{44.45, 32.79, 42.48, 35.70}, RelMAE: [4]float64{2.83, 2.26, 12.68, 2.41}},
	{Task: "laplacian_energy", NRMSEStd: [4]float64{1.01, 1.06, 1.19, 0.99}, NRMSERange: [4]float64{0.13, 0.11, 0.18, 0.13}, SMAPE: [4]float64{36.17, 35.34, 43.95, 40.99}, RelMAE: [4]float64{0.82, 0.91, 0.99, 0.96}},
	{Task: "n_components", NRMSEStd: [4]float64{4.34, 1.24, 5.44, 1.83}, NRMSERange: [4]float64{0.80, 0.24, 1.04, 0.35}, SMAPE: [4]float64{19.21, 13.79, 37.39, 30.46}, RelMAE: [4]float64{1.86, 0.58, 3.66, 1.57}},
	{Task: "natural_connectivity", NRMSEStd: [4]float64{36.53, 33.68, 22.10, 30.18}, NRMSERange: [4]float64{9.50, 8.65, 6.72, 7.79}, SMAPE: [4]float64{86.05, 66.99, 64.25, 50.47}, RelMAE: [4]float64{16.29, 14.96, 12.60, 11.58}},
	{Task: "spectral_gap", NRMSEStd: [4]float64{3.74, 1.27, 2.82, 1.26}, NRMSERange: [4]float64{1.16, 0.38, 0.86, 0.39}, SMAPE: [4]float64{64.09, 67.04, 71.95, 77.33}, RelMAE: [4]float64{1.46, 1.18, 1.40, 1.08}},
	{Task: "sum_lambda_squared", NRMSEStd: [4]float64{1.24, 0.97, 9.21, 0.61}, NRMSERange: [4]float64{0.21, 0.16, 1.31, 0.10}, SMAPE: [4]float64{12.67, 11.84, 18.23, 5.68}, RelMAE: [4]float64{0.92, 0.60, 4.24, 0.36}},
	{Task: "spectral_radius", NRMSEStd: [4]float64{1.88, 1.09, 1.46, 0.78}, NRMSERange: [4]float64{0.32, 0.18, 0.26, 0.13}, SMAPE: [4]float64{26.55, 20.84, 26.76, 24.27}, RelMAE: [4]float64{1.44, 0.86, 1.21, 0.87}},
	{Task: "von_neumann_entropy", NRMSEStd: [4]float64{20.33, 2.67, 3.14, 2.20}, NRMSERange: [4]float64{5.43, 0.72, 0.90, 0.60}, SMAPE: [4]float64{71.32, 38.72, 53.66, 38.70}, RelMAE: [4]float64{7.48, 2.53, 3.26, 2.39}},
}

// SpectralTable1 transcribes Table 1 (average sMAPE₀₋₁₀₀ by
// difficulty), keyed by model then "Easy", "Medium", "Hard".
var SpectralTable1 = map[string]map[string]float64{
	"Qwen-3B": {"Easy": 35.01, "Medium": 53.89, "Hard": 56.60},
	"Qwen-7B": {"Easy": 19.73, "Medium": 50.05, "Hard": 51.31},
	"G1-3B":   {"Easy": 30.33, "Medium": 55.74, "Hard": 59.14},
	"G1-7B":   {"Easy": 20.80, "Medium": 49.58, "Hard": 39.95},
}

// SpectralGlobalError holds the global normalized errors quoted in
// App. H.
var SpectralGlobalError = map[string]float64{"G1-7B": 0.214, "Qwen-7B": 0.232, "G1-3B": 0.283, "Qwen-3B": 0.318}
