package results

// Provenance says where and when a row was measured. Commit is the short
// commit the measured binary was built from ("a|b": one of these, for rows
// recovered from the docs whose commit the history cannot pin; "a..b": a
// run that resumed across the commits from a to b; empty: not recorded).
type Provenance struct {
	Date          string `json:"date"` // YYYY-MM-DD
	Commit        string `json:"commit,omitempty"`
	Machine       string `json:"machine"`
	Command       string `json:"command,omitempty"`
	RecoveredFrom string `json:"recovered_from,omitempty"` // the page a row was rebuilt from, when its raw output was lost
	Note          string `json:"note,omitempty"`
}

// ProtocolSide is one side (the reference or narlab) of a CLRS-30 protocol
// row: scripts/ref_protocol.py's JSON and BenchmarkProtocol's metrics, in
// one vocabulary. Pointers are figures that older versions of the
// benchmark did not measure.
type ProtocolSide struct {
	FirstStepS    float64  `json:"first_step_s"` // model creation and the first training step (compilation)
	ProtocolS     float64  `json:"protocol_s"`   // the short protocol: two training steps, the val and test splits
	ValS          *float64 `json:"val_s,omitempty"`
	TestS         float64  `json:"test_s"`                     // the n=64 test split
	StepsPerS     float64  `json:"steps_per_s"`                // steady-state training
	PeakRSSMB     float64  `json:"peak_rss_mb"`                // peak resident memory during the protocol
	PeakRSSAllMB  *float64 `json:"peak_rss_all_mb,omitempty"`  // the same after the steady-state steps
	HostMSPerStep *float64 `json:"host_ms_per_step,omitempty"` // narlab: the host's part of a training step
	TestProcesses int      `json:"test_processes,omitempty"`   // a test split resumed across this many runs
	Device        string   `json:"device,omitempty"`           // the reference's JAX device
	NsPerOp       int64    `json:"ns_per_op,omitempty"`        // narlab: the benchmark's whole time
	Procs         int      `json:"procs,omitempty"`            // narlab: GOMAXPROCS (the benchmark name's -N)
}

// ProtocolRow is a line of protocol_rows.jsonl (scripts/bench_protocol.sh):
// one algorithm and processor at the paper's size, both sides on one
// machine. A nil side failed.
type ProtocolRow struct {
	Provenance
	Algo      string        `json:"algo"`
	Processor string        `json:"processor"`
	Reference *ProtocolSide `json:"reference"`
	Narlab    *ProtocolSide `json:"narlab"`
}

// ParityRow is a line of parity30.jsonl (scripts/parity_train.sh): one side
// of a learning-parity row, trained on the same data, budget and seed as
// the other side.
type ParityRow struct {
	System        string   `json:"system"` // "reference" or "narlab"
	Algo          string   `json:"algo"`
	Processor     string   `json:"processor"`
	Steps         int      `json:"steps"`
	Hidden        int      `json:"hidden"`
	Batch         int      `json:"batch"`
	Seed          int      `json:"seed"`
	RecoveredFrom string   `json:"recovered_from,omitempty"`
	BestVal       *float64 `json:"best_val,omitempty"` // fraction; nil when Failed
	Test          *float64 `json:"test,omitempty"`
	TestGapPoints *float64 `json:"test_gap_points,omitempty"` // the gap as first printed, from unrounded scores (recovered rows)
	BestStep      *int     `json:"best_step,omitempty"`
	FinalLoss     *float64 `json:"final_loss,omitempty"`
	Seconds       *float64 `json:"seconds,omitempty"`
	TestBatch     *int     `json:"test_batch,omitempty"` // the reference's prediction batch (0: the whole split)
	Backend       string   `json:"backend,omitempty"`
	Failed        string   `json:"failed,omitempty"` // why the side did not finish
	Commit        string   `json:"commit,omitempty"` // narlab rows: the commit of the binary that trained (rows since 2026-12-05)
}

// MultiAlgoRow is a line of multi_algo.jsonl (scripts/parity_multi.py):
// one side of the comparison of one model of several algorithms (the
// reference's run.py --algorithms, narlab train --algo a,b,c), trained
// with the same settings and data as the other side on the same machine.
type MultiAlgoRow struct {
	Provenance
	System     string   `json:"system"` // "reference" or "narlab"
	Algorithms []string `json:"algorithms"`
	Processor  string   `json:"processor"`
	Steps      int      `json:"steps"`
	Hidden     int      `json:"hidden"`
	Batch      int      `json:"batch"`
	EvalEvery  int      `json:"eval_every"`
	Seed       int      `json:"seed"`
	BestStep   *int     `json:"best_step,omitempty"`
	// BestVal and Test are per algorithm (fractions): the validation
	// score at the best step (the highest sum of the algorithms') and the
	// test score of the best checkpoint.
	BestVal map[string]float64 `json:"best_val,omitempty"`
	Test    map[string]float64 `json:"test,omitempty"`
	Seconds *float64           `json:"seconds,omitempty"` // the side's wall time: model, training, validations, test
	// CPUSeconds is the CPU time (user and system, all threads) the
	// side's process took: on a machine shared with other work, the
	// measure of its cost that the other work changes least.
	CPUSeconds *float64 `json:"cpu_seconds,omitempty"`
	Nice       *int     `json:"nice,omitempty"`        // the niceness the side ran at
	PeakRSSMB  *float64 `json:"peak_rss_mb,omitempty"` // the process's peak resident memory
	TestBatch  *int     `json:"test_batch,omitempty"`  // the reference's prediction batch of the test split
	Backend    string   `json:"backend,omitempty"`
	Failed     string   `json:"failed,omitempty"` // why the side did not finish
}

// SameInitRow is a line of same_init.jsonl (scripts/same_init_grid.sh):
// narlab trained from the reference's initial parameters on the
// reference's batches (lib/nn's TestReferenceSameInitLosses replaying
// scripts/parity_ref.py --dump-steps --no-scores), for how many steps the
// two sides' losses agree within 0.1 %, and the same for narlab against
// itself one ulp apart (the rounding control).
type SameInitRow struct {
	Provenance
	Algo      string `json:"algo"`
	Processor string `json:"processor"`
	Seed      int    `json:"seed"`
	Hidden    int    `json:"hidden"`
	Batch     int    `json:"batch"`
	Steps     int    `json:"steps"` // the cap: the training steps both sides took
	// AgreesTo is the last step up to which every step's losses agree
	// within 0.1 % (relative to the reference's); Steps when all do.
	AgreesTo int `json:"agrees_to_step"`
	// MaxRelDiff is the largest relative difference of the losses over
	// the agreeing steps.
	MaxRelDiff   float64   `json:"max_rel_diff"`
	RefLosses    []float64 `json:"ref_losses"`
	NarlabLosses []float64 `json:"narlab_losses"`
	// UlpAgreesTo is the control, run where the losses part within Steps
	// (may be nil otherwise): for how many steps narlab's losses agree within
	// 0.1 % with narlab's own from the same initial parameters moved by
	// one float32 ulp (UlpLosses): the same function on both sides, so
	// where these part, rounding alone, amplified by training, has grown
	// to 0.1 %.
	UlpAgreesTo *int      `json:"ulp_agrees_to_step,omitempty"`
	UlpLosses   []float64 `json:"ulp_losses,omitempty"`
	// UlpControls, where measured, is the control in several one-ulp
	// patterns (lib/nn's nudgeUp; UlpAgreesTo is the first): one pattern is
	// one draw of rounding's spread, these show its range. A row that
	// parts no earlier than the earliest of them parts where rounding
	// alone would.
	UlpControls []int `json:"ulp_control_steps,omitempty"`
	// BackendControl, measured where the row parts earlier than every
	// one-ulp control, is the step to which narlab on the pure-Go backend
	// agrees with narlab on Backend from the same parameters
	// (BackendControlLosses): the same function rounded differently in
	// every operation, as the reference's compiled program is.
	BackendControl       *int      `json:"backend_control_step,omitempty"`
	BackendControlLosses []float64 `json:"backend_control_losses,omitempty"`
	Backend              string    `json:"backend"`
	RefSeconds           float64   `json:"ref_seconds"`
	NarlabSeconds        float64   `json:"narlab_seconds"`
	// Diagnosis says, for a row whose losses part early, where they part
	// and why (docs/log/results-same-init.md has the evidence).
	Diagnosis string `json:"diagnosis,omitempty"`
}

// TrainSide is one side of a training-speed row.
type TrainSide struct {
	StepsPerS     float64  `json:"steps_per_s"`
	FirstStepS    float64  `json:"first_step_s"`
	WarmupS       *float64 `json:"warmup_s,omitempty"`         // narlab: steps until auto trains unrolled
	HostMSPerStep *float64 `json:"host_ms_per_step,omitempty"` // narlab
}

// TrainRow is a line of train_bench.jsonl (scripts/bench_train.sh).
type TrainRow struct {
	Provenance
	Backend   string     `json:"backend"`
	Steps     int        `json:"steps"` // steady-state steps timed
	Algo      string     `json:"algo"`
	Processor string     `json:"processor"`
	Reference *TrainSide `json:"reference"`
	Narlab    *TrainSide `json:"narlab"`
	// Speedup is narlab's steps/s over the reference's as first printed,
	// from the unrounded rates (rows recovered from the docs, whose
	// rates kept two decimals); without it the page divides the rates.
	Speedup *float64 `json:"speedup,omitempty"`
}

// SteadySide is one side of a steady-state training row
// (scripts/bench_steady.sh): scripts/ref_steady.py's JSON or
// BenchmarkSteady's metrics.
type SteadySide struct {
	StepsPerS     float64  `json:"steps_per_s"`
	CPUSPerStep   float64  `json:"cpu_s_per_step"` // the process's user and system CPU time per step
	FirstStepS    float64  `json:"first_step_s"`
	PeakRSSMB     float64  `json:"peak_rss_mb"`
	HostMSPerStep *float64 `json:"host_ms_per_step,omitempty"` // narlab
	// MFLOPPerStep is a training step's matrix-product FLOPs (narlab's
	// programs, engine.GraphFLOPs), GFLOPPerS that at the measured rate.
	MFLOPPerStep *float64 `json:"mflop_per_step,omitempty"`
	GFLOPPerS    *float64 `json:"gflop_per_s,omitempty"`
	// ProgramShare and UnrolledShare are the shares of the timed steps
	// narlab trained as one program and unrolled (the rest in the loop).
	ProgramShare  *float64 `json:"program_share,omitempty"`
	UnrolledShare *float64 `json:"unrolled_share,omitempty"`
	Device        string   `json:"device,omitempty"` // the reference's JAX device
	// GPUMB is the card's memory the process took at its peak (nvidia-smi's
	// memory.used less the card's before it), on a card.
	GPUMB *float64 `json:"gpu_mb,omitempty"`
}

// SteadyRow is a line of steady.jsonl (scripts/bench_steady.sh): the
// steady-state training of a CLRS-30 protocol row, both sides one after
// the other in one run on one machine, with the machine's load and its
// measured matrix-product peak (BenchmarkMatmulPeak) beside them. A nil
// side failed.
type SteadyRow struct {
	Provenance
	Backend   string `json:"backend"`
	Steps     int    `json:"steps"` // steady-state steps timed per side
	Algo      string `json:"algo"`
	Processor string `json:"processor"`
	// Exec is narlab's execution options as run ("" for the defaults,
	// else e.g. "step_loop=program").
	Exec string `json:"exec,omitempty"`
	// Load1 is the machine's one-minute load average when the row began.
	Load1 float64 `json:"load1"`
	// PeakGFLOPPerS is the run's square float32 matrix product on narlab's
	// backend (best of its calls), MessageGFLOPPerS the model's message-MLP
	// product ([8192,128]×[128,128]).
	PeakGFLOPPerS    *float64    `json:"peak_gflop_per_s,omitempty"`
	MessageGFLOPPerS *float64    `json:"message_gflop_per_s,omitempty"`
	Reference        *SteadySide `json:"reference"`
	Narlab           *SteadySide `json:"narlab"`
}

// PredictSide is one side of an evaluation-alone row.
type PredictSide struct {
	SPerBatch float64 `json:"s_per_batch"`
	MSPerStep float64 `json:"ms_per_step"`
}

// PredictRow is a line of predict.jsonl (scripts/bench_predict.sh on a CPU,
// the predict: rows of scripts/gpu_bench.sh on a card): one test batch of 32
// at n=64, after a first prediction that compiles.
type PredictRow struct {
	Provenance
	Device    string       `json:"device"` // "cpu" or the card, e.g. "H100"
	Backend   string       `json:"backend"`
	EvalLoop  string       `json:"eval_loop"` // narlab's evaluation loop: "host" or "device"
	Batches   int          `json:"batches"`   // timed batches a side
	Algo      string       `json:"algo"`
	Processor string       `json:"processor"`
	Reference *PredictSide `json:"reference"`
	Narlab    *PredictSide `json:"narlab"`
	Speedup   *float64     `json:"speedup,omitempty"` // as first printed (see TrainRow.Speedup)
}

// StepCallRow is a line of step_calls.jsonl (BenchmarkStepCall): the cost
// of one call of the evaluation step program beside a near-empty program
// with a carry of the same size.
type StepCallRow struct {
	Provenance
	Device      string  `json:"device"`
	Algo        string  `json:"algo"`
	Processor   string  `json:"processor"`
	Steps       int     `json:"steps"`
	StepCallUS  float64 `json:"step_call_us"`
	EmptyCallUS float64 `json:"empty_call_us"`
}

// GPUProtocolRow is a line of gpu_protocol.jsonl (scripts/gpu_bench.sh,
// tables by scripts/gpu_bench_table.py): one side of a protocol row on a
// card, under the lease's time limit. Unfinished says how far a side got
// when it did not finish; its figures are then those it reached.
type GPUProtocolRow struct {
	Provenance
	Algo       string   `json:"algo"`
	Processor  string   `json:"processor"`
	Side       string   `json:"side"`              // "narlab" or "reference"
	Variant    string   `json:"variant,omitempty"` // narlab's settings beside the defaults, e.g. "device loop, 8 steps a call"
	FirstStepS *float64 `json:"first_step_s,omitempty"`
	ProtocolS  *float64 `json:"protocol_s,omitempty"`
	ValS       *float64 `json:"val_s,omitempty"`
	TestS      *float64 `json:"test_s,omitempty"`
	StepsPerS  *float64 `json:"steps_per_s,omitempty"`
	HostPeakMB *float64 `json:"host_peak_mb,omitempty"`
	GPUMB      float64  `json:"gpu_mb"`                // nvidia-smi's peak, less the card's before
	JAXGPUMB   *float64 `json:"jax_gpu_mb,omitempty"`  // JAX's own count of its peak
	GPUMBSeen  bool     `json:"gpu_mb_seen,omitempty"` // GPUMB is the last seen before the limit
	Unfinished string   `json:"unfinished,omitempty"`
}

// SparseRow is a line of sparse.jsonl (scripts/bench_sparse.sh; the
// sparse/N and dense/N rows of scripts/gpu_bench.sh): evaluation of a batch
// of graphs of N nodes by the sparse or the dense model.
type SparseRow struct {
	Provenance
	Device  string   `json:"device"`
	Backend string   `json:"backend"`
	Algo    string   `json:"algo"`
	Graphs  int      `json:"graphs"`
	Hidden  int      `json:"hidden"`
	N       int      `json:"n"`
	Path    string   `json:"path"`              // "sparse" or "dense"
	FirstS  float64  `json:"first_s"`           // compilation included
	AgainS  float64  `json:"again_s"`           // the same batch again
	PeakMB  *float64 `json:"peak_mb,omitempty"` // resident memory (CPU)
	GPUMB   *float64 `json:"gpu_mb,omitempty"`  // card memory
}

// DatasetRow is a line of dataset.jsonl (scripts/bench_dataset.sh). A row
// with Algo is one algorithm's train split (seconds for 1,000 samples at
// n=16, each side on one CPU); a row with What is an end-to-end figure of
// Split, and the row marked Baseline is what the speed-ups are against.
type DatasetRow struct {
	Provenance
	Split      string   `json:"split"` // "train" or "all"
	Algo       string   `json:"algo,omitempty"`
	ReferenceS *float64 `json:"reference_s,omitempty"`
	NarlabS    *float64 `json:"narlab_s,omitempty"`
	What       string   `json:"what,omitempty"`
	Seconds    *float64 `json:"seconds,omitempty"` // the median of the runs
	MinS       *float64 `json:"min_s,omitempty"`
	MaxS       *float64 `json:"max_s,omitempty"`
	Size       string   `json:"size,omitempty"` // as du -h prints it
	PeakMiB    *float64 `json:"peak_mib,omitempty"`
	Baseline   bool     `json:"baseline,omitempty"`
	Key        string   `json:"key,omitempty"` // the name a page quotes the row by ("default", "all")
}

// NotebookRow is a line of notebooks.jsonl (make time-notebooks).
type NotebookRow struct {
	Provenance
	Notebook string  `json:"notebook"`
	ColdS    float64 `json:"cold_s"` // an empty Go build cache
	WarmS    float64 `json:"warm_s"`
}

// TrackingRow is a line of tracking.jsonl: MLflow logging benchmarks.
type TrackingRow struct {
	Provenance
	Benchmark   string   `json:"benchmark"`
	Store       string   `json:"store,omitempty"` // the server's backend store
	Writers     int      `json:"writers"`
	BatchPoints int      `json:"batch_points"` // points a request (0: the client's own batching)
	Value       float64  `json:"value"`
	Max         *float64 `json:"max,omitempty"` // the top of a range
	Unit        string   `json:"unit"`
}

// FigureRow is a line of figures.jsonl: a single measured figure of a
// topic that has no table of its own.
type FigureRow struct {
	Provenance
	Topic string  `json:"topic"`
	What  string  `json:"what"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// Demo is a line of demo.jsonl: what one `narlab demo` measured, from the
// summary.json it writes beside its run (scripts/bench_demo.sh adds the
// provenance). Its Transcript is the demo's own output.
type Demo struct {
	Provenance
	Backend    string  `json:"backend"`
	Algo       string  `json:"algo"`
	Processor  string  `json:"processor"`
	Steps      int     `json:"steps"`
	Hidden     int     `json:"hidden"`
	Batch      int     `json:"batch"`
	TrainNodes int     `json:"train_nodes"`
	TestNodes  int     `json:"test_nodes"`
	DataFiles  int     `json:"data_files"`
	DataS      float64 `json:"data_s"`
	TrainS     float64 `json:"train_s"` // training and testing
	TotalS     float64 `json:"total_s"`
	FirstStepS float64 `json:"first_step_s"`
	StepsPerS  float64 `json:"steps_per_s"`
	Test       float64 `json:"test"` // fraction
	BestVal    float64 `json:"best_val"`
	BestStep   int     `json:"best_step"`
	PaperTest  float64 `json:"paper_test"` // %, CLRS paper Table 2
	PaperStd   float64 `json:"paper_std"`
}

// SweepRow is a line of clrs30_reduced.jsonl: one cell of the 30-algorithm
// sweep at a reduced budget (narlab sweep run; docs/results.md).
type SweepRow struct {
	Provenance
	Experiment  string  `json:"experiment"`
	Algo        string  `json:"algo"`
	Processor   string  `json:"processor"`
	Steps       int     `json:"steps"`
	Hidden      int     `json:"hidden"`
	Batch       int     `json:"batch"`
	Seed        int     `json:"seed"`
	ValSamples  int     `json:"val_samples"`
	TestSamples int     `json:"test_samples"`
	Test        float64 `json:"test"`
	BestVal     float64 `json:"best_val"`
}

// Figure3Row is a line of figure3.jsonl: one cell of the CLRS paper's
// Figure 3 grid (narlab clrs fig3, before it cmd/clrsfig3), with its MLflow run.
type Figure3Row struct {
	Provenance
	Experiment string  `json:"experiment"`
	Grid       string  `json:"grid"`
	Algo       string  `json:"algo"`
	Processor  string  `json:"processor"`
	Steps      int     `json:"steps"`
	Hidden     int     `json:"hidden"`
	Batch      int     `json:"batch"`
	Seed       int     `json:"seed"`
	BestVal    float64 `json:"best_val"`
	Test       float64 `json:"test"`
	BestStep   int     `json:"best_step"`
	StepsPerS  float64 `json:"steps_per_s"`
	RunID      string  `json:"run_id"`
}
