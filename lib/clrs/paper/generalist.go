package paper

// TripletGMPNNClasses holds Triplet-GMPNN's single-task out-of-distribution
// micro-F1 (%) per algorithm class, mean ± std after 10,000 steps, from
// Table 1 of Ibarz et al., "A Generalist Neural Algorithmic Learner" (LoG
// 2022): the processor the CLRS-30 sweep of docs/results.md trains. That
// paper's per-algorithm table is not transcribed here.
var TripletGMPNNClasses = map[string]Score{
	"Divide & Conquer": {76.36, 1.34},
	"Dynamic Prog.":    {81.99, 4.98},
	"Geometry":         {94.09, 2.30},
	"Graphs":           {81.41, 6.21},
	"Greedy":           {91.21, 2.95},
	"Search":           {58.61, 24.34},
	"Sorting":          {60.37, 12.16},
	"Strings":          {49.09, 23.49},
}
