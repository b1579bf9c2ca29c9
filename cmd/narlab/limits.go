package main

import (
	"flag"
	"fmt"
	"math"
	"time"

	"github.com/narlab/narlab/internal/cliflag"
	"github.com/narlab/narlab/internal/membudget"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn/engine"
)

// Every number a user can give narlab is checked here, before a command
// does any work, against a documented range: parseFlags calls checkFlags,
// which looks each numeric flag up in flagBounds. A numeric flag missing
// from the table is still refused when it is negative, NaN or infinite
// (TestEveryNumericFlagHasABound keeps the table complete). Bounds that
// depend on several flags at once (samples × the size of one sample) are
// checked against internal/membudget (checkSamples).

// A bound is the accepted range of one numeric flag. zero, when set, says
// what 0 means (0 is then accepted even if min > 0); why says where the
// limit comes from, for the error message.
type bound struct {
	min, max float64
	zero     string
	why      string
	// noCheck: any value of the flag's type is meaningful (seeds).
	noCheck bool
	// unset, when set, says what happens when the flag is not given (its
	// default is then outside the range, and giving it explicitly is not
	// the same as leaving it out).
	unset string
}

const (
	maxSeed32 = math.MaxUint32 // numpy's RandomState seeds are 32-bit
	maxCount  = 1_000_000      // rows, instances, samples: a million take minutes to produce
)

var (
	seed32   = bound{min: 0, max: maxSeed32, why: "numpy's RandomState takes seeds 0..2³²−1"}
	seed63   = bound{min: 0, max: math.MaxInt64, why: "seeds are non-negative 64-bit integers"}
	workers  = bound{min: 1, max: 1024, zero: "all CPUs", why: "goroutines"}
	graphMax = bound{min: 5, max: 100, why: "synthetic graphs are dense enough to print as text prompts; the paper's have at most 35 nodes"}
)

// flagBounds holds the range of every numeric flag, keyed "COMMAND --FLAG".
var flagBounds = map[string]bound{
	"clrs sample --length":            {min: 1, max: maxLength, why: lengthWhy},
	"clrs sample --seed":              seed32,
	"clrs sample --count":             {min: 1, max: maxCount, why: "samples are held in memory; their measured size is also checked against the memory budget"},
	"clrs sample --batch":             {min: 1, max: maxCount, zero: "print the whole set", why: "a batch is held in memory"},
	"clrs sample --random-pos":        {min: -1, max: maxSeed32, why: "-1 is off; otherwise a RandomState seed 0..2³²−1"},
	"clrs sample --truncate-decimals": {min: 1, max: 15, zero: "off", why: "a float64 has about 15 significant decimals"},
	"clrs generate --workers":         workers,
	"clrs generate --count":           {min: 1, max: maxCount, zero: "1000", why: "samples per file, held in memory while it is written; their measured size is also checked against the memory budget"},
	"clrstext sample --length":        {min: 1, max: maxLength, why: lengthWhy},
	"clrstext sample --seed":          seed32,
	"clrstext sample --count":         {min: 1, max: maxCount, why: "rows stream one at a time; a million take minutes, and one row is checked against the memory budget"},
	"clrstext generate --count":       {min: 1, max: maxCount, zero: "the split's", why: "rows per (algorithm, size, seed)"},
	"clrstext generate --workers":     workers,
	"dsr generate --count":            {min: 1, max: 5_000, why: "a level's instances are held in memory before writing (DSR-Bench uses 30); 5,000 long ones take up to 200 MB"},
	"dsr generate --seed":             seed63,
	"dsr generate --dim":              {min: 1, max: 64, unset: "2 for the spatial tasks", why: "dimension of the spatial tasks' points"},
	"dsr verify --max":                {min: 0, max: maxCount, why: "mismatches printed in full (0: none)"},
	"dsr prompt --tokens":             {min: 1, max: 10_000_000, why: "a token budget stated in the prompt"},
	"graphs prompts --relabel":        {min: 0, max: 100, why: "relabelings per instance (0: none; the paper uses 10)"},
	"graphs prompts --seeds":          {min: 1, max: 100, why: "shuffle seeds per encoding (the paper uses 10)"},
	"graphs prompts --seed":           seed63,
	"graphs prompts --count":          {min: 1, max: 10_000, why: "instances per task are built in memory; the prompt count is also bounded"},
	"graphs prompts --max-nodes":      graphMax,
	"graphs predict --seed":           seed63,
	"graphs spectral --heat-time":     {min: 0, max: 1e6, why: "t of exp(−tL); beyond 1e6 every term underflows"},
	"graphs spectral --entropy-log-base": {min: math.SmallestNonzeroFloat64, max: math.MaxFloat64,
		why: "a logarithm base must be positive and not 1"},
	"graphs spectral-eval --heat-time": {min: 0, max: 1e6, why: "t of exp(−tL); beyond 1e6 every term underflows"},
	"graphs spectral-eval --entropy-log-base": {min: math.SmallestNonzeroFloat64, max: math.MaxFloat64,
		why: "a logarithm base must be positive and not 1"},
	"graphs spectral-eval --count":       {min: 1, max: 10_000, why: "test graphs are generated and decomposed in memory"},
	"graphs spectral-eval --seed":        seed63,
	"graphs spectral-eval --train-count": {min: 1, max: 100_000, why: "training graphs are held in memory"},
	"graphs spectral-eval --steps":       {min: 1, max: 1_000_000, why: "GNN training steps"},
	"graphs spectral-eval --hidden":      {min: 1, max: 1024, why: "GNN width: weights and activations grow with its square"},
	"graphs spectral-eval --layers":      {min: 1, max: 32, why: "message-passing rounds"},
	"graphs spectral-eval --spread":      {min: 0, max: 100, why: "relabelings per test graph (0: skip the spread)"},
	"mlflow sync --timeout":              {min: float64(time.Second), max: float64(7 * 24 * time.Hour), why: "how long sync may wait for the server"},
	"mlflow runs --timeout":              {min: float64(time.Second), max: float64(24 * time.Hour), why: "how long to wait for the tracking server"},
	"mlflow runs --max":                  {min: 0, max: 100_000, why: "runs listed, or experiments without --experiment (0: all)"},
	"mlflow example --steps":             {min: 2, max: 1_000_000, why: "each step logs two points; the spool holds them until sent"},
	"mlflow example --seed":              seed63,
	"demo --steps":                       {min: 1, max: 100_000, why: "training steps of the demo's small processor"},
	"train --steps":                      {min: 1, max: 100_000_000, why: "training steps"},
	"train --batch":                      {min: 1, max: 4096, why: "a batch's feedback and activations are held in memory"},
	"train --hidden":                     {min: 1, max: 256, why: "an edge activation of the test evaluation holds 32 graphs × 64² × hidden float32s: 128 MiB at 256"},
	"train --lr":                         {min: math.SmallestNonzeroFloat64, max: 10, why: "Adam's learning rate is positive"},
	"train --seed":                       {min: 1, max: maxSeed32, why: "a RandomState seed; the training loop takes 0 as unset (42), so 0 is refused"},
	"train --grad-clip":                  {min: math.SmallestNonzeroFloat64, max: 1e6, why: "the gradients' global norm bound (--no-grad-clip: none)"},
	"train --teacher-forcing":            {min: 0, max: 1, why: "a probability (0: never)"},
	"train --nb-heads":                   {min: 1, max: 256, why: "attention heads divide the hidden size (at most 256)"},
	"train --nb-msg-passing-steps":       {min: 1, max: 64, why: "processor calls per algorithm step: each adds a processor's work to every step"},
	"train --nb-triplet-fts":             {min: 1, max: 128, why: "the triplet messages are batch × n³ × this float32s"},
	"train --dropout-prob":               {min: 0, max: 0.999, why: "a rate in [0, 1) (0: none)"},
	"train --eval-every":                 {min: 1, max: 100_000_000, why: "steps between validations"},
	"train --steps-per-call":             {min: 1, max: engine.MaxStepsPerCall, why: "each training call of the step loop unrolls this many steps: its program and compile time grow with it"},
	"train --train-length":               {min: 2, max: 64, zero: "off: --train-data chooses the data (default: fresh samples of --train-lengths)", why: "1000 fixed samples of this length are held in memory; CLRS-30 tests at 64"},
	"train --chunk-length":               {min: 1, max: 1024, why: "a chunk's steps run unrolled in one program: its size and compile time grow with them"},
	"train --test-every":                 {min: 1, max: 100_000_000, zero: "off: the best checkpoint is tested once, at the end", why: "steps between tests of the current model"},
	"train --length-needle":              {min: -64, max: 64, zero: "none: the sampler's own rule (1 character below length 5, else length/5), run.py's 0", why: "the string matchers' needle: k characters, or −k: 1..k drawn per sample; it must fit at their training length (5/4 of the longest --train-lengths)"},
	"train --val-samples":                {min: 1, max: maxCount, zero: "all", why: "samples of the split"},
	"train --test-samples":               {min: 1, max: maxCount, zero: "all", why: "samples of the split"},
	"mlflow serve --port":                {min: 1, max: 65535, why: "a TCP port"},
	"mlflow serve --workers":             {min: 1, max: 256, why: "the server's worker processes"},
	"clrs fig3 --steps":                  {min: 1, max: 100_000_000, why: "training steps of each cell"},
	"clrs fig3 --batch":                  {min: 1, max: 4096, why: "a batch's feedback and activations are held in memory"},
	"clrs fig3 --hidden":                 {min: 1, max: 256, why: "as narlab train --hidden"},
	"clrs fig3 --seed":                   {min: 1, max: maxSeed32, why: "a RandomState seed, every cell's"},
	"clrs fig3 --eval-every":             {min: 1, max: 100_000_000, why: "steps between validations"},
	"clrs fig3 --train-length":           {min: 2, max: 64, zero: "off: --train-data chooses the data", why: "1000 fixed samples of this length are held in memory"},
	"clrs fig3 --val-samples":            {min: 1, max: maxCount, zero: "all", why: "samples of the split"},
	"clrs fig3 --test-samples":           {min: 1, max: maxCount, zero: "all", why: "samples of the split"},
	"sweep run --cpus":                   {min: 1, max: 4096, zero: "1", why: "CPUs per cell (SLURM --cpus-per-task)"},
	"sweep run --gpus":                   {min: 1, max: 64, zero: "none", why: "GPUs per cell (--gres=gpu:N)"},
	"sweep run --throttle":               {min: 1, max: 100_000, zero: "no limit", why: "array tasks at once (%K)"},
	"sweep run --parallel":               {min: 1, max: 1024, zero: "1", why: "local cells at once"},
	"sweep cell --index":                 {min: 0, max: maxCount, unset: "required", why: "the array task id"},
	"llm run --limit":                    {min: 1, max: maxCount, zero: "all", why: "prompts asked"},
	"llm run --concurrency":              {min: 1, max: 256, why: "requests in flight"},
	"llm run --temperature":              {min: 0, max: 2, why: "OpenAI-compatible servers accept 0..2"},
	"llm run --max-tokens":               {min: 1, max: 1_000_000, zero: "the --sampling preset's (or the suite's) default", why: "answer length in tokens"},
	"llm run --seed":                     {min: -1, max: math.MaxInt64, why: "-1: no seed sent; else a non-negative 64-bit integer"},
	"llm run --top-p":                    {min: 0, max: 1, why: "a probability mass (0: the server's default)"},
	"llm run --top-k":                    {min: 0, max: 1_000_000, why: "tokens kept at each step (0: the server's default, not sent)"},
	"llm run --timeout":                  {min: float64(time.Second), max: float64(24 * time.Hour), why: "bound on each HTTP attempt"},
	"llm run --retries":                  {min: 0, max: 100, why: "retries of one request"},
	"llm run --count":                    {min: 1, max: 10_000, zero: "the suite's default", why: "instances per group are built in memory"},
	"llm run --data-seed":                seed63,
	"llm run --relabelings":              {min: 0, max: 100, why: "relabelings per instance"},
	"llm run --shuffle-seeds":            {min: 1, max: 100, why: "shuffle seeds per encoding"},
	"llm run --max-nodes":                graphMax,
	"llm run --train-count":              {min: 1, max: 100_000, why: "graphs held in memory for the mean baseline"},
	"llm run --tokens":                   {min: 1, max: 10_000_000, why: "a token budget stated in the prompt"},
	"llm run --heat-time":                {min: 0, max: 1e6, why: "t of exp(−tL); beyond 1e6 every term underflows"},
	"llm run --entropy-log-base":         {min: math.SmallestNonzeroFloat64, max: math.MaxFloat64, why: "a logarithm base must be positive and not 1"},
	"llm serve --port":                   {min: 1, max: 65535, zero: "18080 if free, else any free port", why: "a TCP port"},
	"llm serve --threads":                {min: 1, max: 1024, zero: "the server's choice", why: "CPU threads"},
	"llm serve --context":                {min: 256, max: 1_000_000, why: "context length in tokens"},
	"eval --count":                       {min: 1, max: maxCount, zero: "all", why: "samples of the split"},
	"eval --nb-msg-passing-steps":        {min: 1, max: 64, why: "processor calls per algorithm step"},
	"salsa generate --seed":              seed32,
	"salsa generate --count":             {min: 1, max: maxCount, zero: "SALSA-CLRS's sizes", why: "samples per set, held in memory until their file is written; each file's estimated memory is also checked against 4 GB"},
	"salsa generate --workers":           workers,
	"salsa run --batch":                  {min: 1, max: 4096, why: "training graphs per step, held with their activations in memory"},
	"salsa run --data-seed":              {min: 1, max: maxSeed32, why: "the graphs' sample seed (lib/salsa's streams take 0..2³²−1; 0 is unset)"},
	"salsa run --eval-every":             {min: 1, max: 100_000_000, why: "steps between validations"},
	"salsa run --eval-nodes":             {min: 1, max: 10_000_000, why: "nodes per evaluation batch: activations grow with them and with their edges"},
	"salsa run --hidden":                 {min: 1, max: 1024, why: "node and edge activations hold hidden float32s each"},
	"salsa run --lr":                     {min: math.SmallestNonzeroFloat64, max: 10, why: "Adam's learning rate is positive"},
	"salsa run --seed":                   {min: 1, max: maxSeed32, why: "the model's seed; 0 is unset (42)"},
	"salsa run --steps":                  {min: 1, max: 100_000_000, why: "training steps"},
	"salsa run --test-samples":           {min: 1, max: 1000, zero: "1,000 up to 160 nodes, 40 at 800, 20 at 1,600", why: "test graphs per set (SALSA-CLRS's sets hold 1,000)"},
	"salsa run --train-samples":          {min: 1, max: 1_000_000, why: "training graphs, drawn and held in memory"},
	"salsa run --val-samples":            {min: 1, max: 1_000_000, why: "validation graphs"},
}

// maxLength bounds CLRS sampler lengths: 256, four times CLRS-30's test
// length. Within it the memory check decides: floyd_warshall, the largest
// trajectory (n+1 hint steps of n×n matrices, growing as n³), fits up to
// length 128 (48 MiB a sample), bfs up to 256 (2 MiB).
const maxLength = 256

const lengthWhy = "4× CLRS-30's test length; trajectories grow as n² to n³ and are also checked against the memory budget"

// rules are narlab's flag checks: flagBounds, fileFlags and listFlags.
var rules = cliflag.Rules{Files: fileFlags, Lists: listFlags, Bounds: func(key string) (cliflag.Bound, bool) {
	b, ok := flagBounds[key]
	return cliflag.Bound{Min: b.min, Max: b.max, Zero: b.zero, Why: b.why, NoCheck: b.noCheck}, ok
}}

// checkFlags checks every flag the user set against the tables below
// (cliflag.Rules.Check).
func checkFlags(fs *flag.FlagSet) error { return rules.Check(fs) }

// The table's helpers, under their names in this package's tests.
var (
	numeric     = cliflag.Numeric
	formatBound = cliflag.FormatBound
)

// listFlags are the flags that take a comma-separated list whose items
// each select something once (algorithms, tasks, encodings, seeds, …),
// keyed "COMMAND --FLAG". train --train-lengths is not one: its lengths
// are cycled in order, so a repeated length weighs it.
var listFlags = map[string]bool{
	"clrs generate --algos":     true,
	"clrs fig3 --algos":         true,
	"clrs fig3 --processors":    true,
	"clrstext generate --algos": true,
	"clrstext generate --seeds": true,
	"salsa generate --algos":    true,
	"salsa run --algos":         true,
	"salsa run --sets":          true,
	"salsa generate --sets":     true,
	"graphs prompts --tasks":    true,
	"graphs prompts --encoding": true,
	"graphs prompts --syntax":   true,
	"llm run --algorithms":      true,
	"llm run --lengths":         true,
	"llm run --tasks":           true,
	"llm run --encodings":       true,
	"llm run --syntaxes":        true,
	"llm run --structures":      true,
	"llm run --categories":      true,
	"llm run --levels":          true,
	"sweep run --algos":         true,
	"sweep run --processors":    true,
	"sweep run --seeds":         true,
}

// checkSamples refuses count samples of algo at length when they would not
// fit the memory budget (clrs.SampleBytes, membudget.Check).
func checkSamples(algo string, length int, seed int64, count int, lower string, opts ...clrs.Option) error {
	per, err := clrs.SampleBytes(algo, length, seed, opts...)
	if err != nil {
		return err
	}
	return membudget.Check(fmt.Sprintf("%s samples of length %d", algo, length), count, per,
		" (lower "+lower+")")
}

// A fileKind says what a flag's path must be, checked by checkFlags before
// a command starts work.
type fileKind = cliflag.FileKind

const (
	inFile        = cliflag.InFile
	inFileStdin   = cliflag.InFileStdin
	inPath        = cliflag.InPath
	inDir         = cliflag.InDir
	outFile       = cliflag.OutFile
	outFileStdout = cliflag.OutFileStdout
	outDir        = cliflag.OutDir
)

// fileFlags lists every flag that names a file, keyed "COMMAND --FLAG".
var fileFlags = map[string]fileKind{
	"clrs run --input":                   inFileStdin,
	"clrs generate --out":                outDir,
	"clrs sample --out":                  outFile,
	"eval --data":                        inFile,
	"eval --predictions":                 outFile,
	"salsa generate --out":               outDir,
	"clrstext generate --out":            outFile,
	"clrstext score --data":              inFile,
	"clrstext score --predictions":       inFile,
	"clrstext score --figure":            outFile,
	"demo --out":                         outDir,
	"dsr generate --out":                 outFileStdout,
	"dsr verify --input":                 inPath,
	"dsr prompt --input":                 inPath,
	"dsr prompt --examples":              inDir,
	"dsr prompt --templates":             inDir,
	"dsr score --input":                  inPath,
	"dsr score --predictions":            inFile,
	"dsr score --figures":                outDir,
	"dsr baseline --input":               inPath,
	"dsr baseline --out":                 outFileStdout,
	"graphs truth --graph":               inFileStdin,
	"graphs prompts --erdos":             inFile,
	"graphs prompts --out":               outFile,
	"graphs predict --prompts":           inFile,
	"graphs predict --out":               outFile,
	"graphs score --prompts":             inFile,
	"graphs score --predictions":         inFile,
	"graphs spectral --graph":            inFileStdin,
	"graphs spectral-eval --graphs":      inFile,
	"graphs spectral-eval --predictions": inFile,
	"graphs spectral-eval --figures":     outDir,
	"kernel install --jupyter-dir":       outDir,
	"kernel prepare --dir":               inDir,
	"mlflow sync --dir":                  inDir,
	"eval --checkpoint":                  inPath,
	"clrs export --checkpoint":           inDir,
	"clrs export --out":                  outFile,
	"train --dir":                        outDir,
}
