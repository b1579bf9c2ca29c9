package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/narlab/narlab/tracking"
)

// Spec is a sweep as a user writes it: the grid and how to run it. Its JSON
// form is the sweep file of `narlab sweep run --spec FILE`:
//
//	{
//	  "name": "clrs-mpnn-vs-pgn",
//	  "experiment": "clrs-sweeps",
//	  "algorithms": ["bfs", "insertion_sort"],
//	  "processors": ["mpnn", "pgn"],
//	  "seeds": [1, 2, 3],
//	  "vary": {"hidden": ["64", "128"]},
//	  "flags": {"steps": "10000", "batch": "32"},
//	  "executor": "slurm",
//	  "slurm": {"partition": "gpu", "time": "02:00:00", "mem": "16G", "gpus": 1,
//	            "throttle": 20, "sbatch": ["--account=clrs", "--qos=normal"]},
//	  "local": {"parallel": 2}
//	}
type Spec struct {
	// Name names the sweep (and its parent run); the sweep's id is the name
	// and a hash of the cells.
	Name string `json:"name"`
	// Experiment is the MLflow experiment of the parent run and the cells
	// (default "clrs-sweeps").
	Experiment string `json:"experiment,omitempty"`
	// Algorithms, Processors and Seeds are the grid's main axes; each needs
	// at least one value.
	Algorithms []string `json:"algorithms"`
	Processors []string `json:"processors"`
	Seeds      []int64  `json:"seeds"`
	// Vary adds axes over other `narlab train` flags (without the dashes),
	// e.g. {"hidden": ["64", "128"]}.
	Vary map[string][]string `json:"vary,omitempty"`
	// Flags are `narlab train` flags every cell gets, e.g. {"steps": "500"}.
	Flags map[string]string `json:"flags,omitempty"`
	// Executor is "slurm" or "local".
	Executor string      `json:"executor"`
	Slurm    SlurmConfig `json:"slurm,omitempty"`
	Local    LocalConfig `json:"local,omitempty"`
}

// SlurmConfig is the job array's resources (the #SBATCH lines).
type SlurmConfig struct {
	Partition string `json:"partition,omitempty"` // --partition (default: the cluster's default)
	Time      string `json:"time,omitempty"`      // --time per task, e.g. "02:00:00"
	Mem       string `json:"mem,omitempty"`       // --mem per task, e.g. "16G"
	CPUs      int    `json:"cpus,omitempty"`      // --cpus-per-task (default 1)
	GPUs      int    `json:"gpus,omitempty"`      // --gres=gpu:N (0: none)
	// Throttle is the array's %K: at most K tasks run at once (0: no limit).
	Throttle int `json:"throttle,omitempty"`
	// Sbatch are extra #SBATCH options, e.g. "--account=clrs".
	Sbatch []string `json:"sbatch,omitempty"`
}

// LocalConfig is the local executor's settings.
type LocalConfig struct {
	// Parallel is the number of cells run at once (default 1).
	Parallel int `json:"parallel,omitempty"`
}

// Cell is one training of the grid.
type Cell struct {
	// Index is the cell's place in the grid (its SLURM array index).
	Index int `json:"index"`
	// Key names the cell: ALGO-PROCESSOR-sSEED, then -FLAG=VALUE for each
	// varied flag in name order, e.g. "bfs-mpnn-s1-hidden=64".
	Key       string            `json:"key"`
	Algorithm string            `json:"algorithm"`
	Processor string            `json:"processor"`
	Seed      int64             `json:"seed"`
	Vary      map[string]string `json:"vary,omitempty"`
	// Args are the cell's own `narlab train` flags (the sweep adds --dir,
	// --experiment, --parent-run and the tags when it runs the cell).
	Args []string `json:"args"`
}

// Executors are the executor names Spec.Executor accepts.
var Executors = []string{"slurm", "local"}

// Flags the sweep sets itself for every cell; a spec may not set them.
var reserved = map[string]string{
	"algo": "algorithms", "processor": "processors", "seed": "seeds",
	"dir": "the sweep directory", "experiment": "experiment", "parent-run": "the sweep",
	"tag": "the sweep", "tracking": "--tracking", "tracking-uri": "--tracking",
	"no-mlflow": "the sweep (cells always log to MLflow)",
}

var (
	nameRE  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	wordRE  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]*$`)
	flagRE  = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	sbatchR = regexp.MustCompile(`^--?[A-Za-z]`)
	// sbatch's --time formats (man sbatch) and --mem sizes.
	slurmTimeRE = regexp.MustCompile(`^(?i:unlimited|infinite)$|^\d+(:\d+){0,2}$|^\d+-\d+(:\d+){0,2}$`)
	slurmMemRE  = regexp.MustCompile(`^\d+[KMGTkmgt]?[Bb]?$`)
)

// ReadSpec reads a sweep file (JSON). Unknown fields are an error, so a
// misspelt setting is not silently ignored.
func ReadSpec(path string) (Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Spec{}, fmt.Errorf("sweep: %w", err)
	}
	var s Spec
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Spec{}, fmt.Errorf("sweep: %s: %w", path, err)
	}
	if dec.More() {
		return Spec{}, fmt.Errorf("sweep: %s: more than one JSON value", path)
	}
	return s, nil
}

// Validate checks the spec and fills its defaults. check, when not nil,
// parses one cell's `narlab train` flags (the command's own parser), so a
// bad flag or value fails here, before anything is submitted.
func (s *Spec) Validate(check func(args []string) error) error {
	if s.Experiment == "" {
		s.Experiment = tracking.DefaultExperiment("clrs-sweeps")
	}
	if s.Local.Parallel == 0 {
		s.Local.Parallel = 1
	}
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if !nameRE.MatchString(s.Name) {
		bad("name %q: want 1-64 letters, digits, '_', '.', '-', starting with a letter or digit", s.Name)
	}
	if strings.TrimSpace(s.Experiment) != s.Experiment || len(s.Experiment) > 500 {
		bad("experiment %q: no surrounding spaces, at most 500 characters", s.Experiment)
	}
	axis := func(what string, vals []string) {
		if len(vals) == 0 {
			bad("no %s", what)
		}
		seen := map[string]bool{}
		for _, v := range vals {
			if !wordRE.MatchString(v) {
				bad("%s %q: want letters, digits, '_', '.', '+', '-'", what, v)
			}
			if seen[v] {
				bad("%s %q given twice", what, v)
			}
			seen[v] = true
		}
	}
	axis("algorithms", s.Algorithms)
	axis("processors", s.Processors)
	if len(s.Seeds) == 0 {
		bad("no seeds")
	}
	seen := map[int64]bool{}
	for _, v := range s.Seeds {
		if v < 1 || v > math.MaxUint32 {
			bad("seed %d: want an integer 1..%d (narlab train's --seed)", v, uint32(math.MaxUint32))
		}
		if seen[v] {
			bad("seed %d given twice", v)
		}
		seen[v] = true
	}
	for k, vals := range s.Vary {
		if why, ok := reserved[k]; ok {
			bad("vary %q: set by %s", k, why)
		} else if !flagRE.MatchString(k) {
			bad("vary %q: not a flag name (lower-case, without dashes)", k)
		}
		if _, ok := s.Flags[k]; ok {
			bad("%q is both varied and fixed", k)
		}
		axis("vary "+k+" values", vals)
	}
	for k := range s.Flags {
		if why, ok := reserved[k]; ok {
			bad("flag %q: set by %s", k, why)
		} else if !flagRE.MatchString(k) {
			bad("flag %q: not a flag name (lower-case, without dashes)", k)
		}
	}
	switch s.Executor {
	case "slurm", "local":
	default:
		bad("executor %q: want one of %s", s.Executor, strings.Join(Executors, ", "))
	}
	c := s.Slurm
	if c.CPUs < 0 || c.GPUs < 0 || c.Throttle < 0 {
		bad("slurm: cpus, gpus and throttle must not be negative")
	}
	for _, v := range []string{c.Partition, c.Time, c.Mem} {
		if strings.ContainsAny(v, " \t\n'\"$`\\") {
			bad("slurm: %q: no spaces, quotes or shell characters", v)
		}
	}
	if c.Time != "" && !slurmTimeRE.MatchString(c.Time) {
		bad("slurm: time %q: want one of sbatch's formats: MINUTES, MINUTES:SECONDS, HOURS:MINUTES:SECONDS, DAYS-HOURS, DAYS-HOURS:MINUTES, DAYS-HOURS:MINUTES:SECONDS, or UNLIMITED", c.Time)
	}
	if c.Mem != "" && !slurmMemRE.MatchString(c.Mem) {
		bad("slurm: mem %q: want a size such as 16G, 4000M or 4000 (megabytes); suffixes K, M, G, T", c.Mem)
	}
	for _, l := range c.Sbatch {
		if !sbatchR.MatchString(l) || strings.ContainsAny(l, "\n\r") {
			bad("slurm: extra #SBATCH option %q: want one option such as --account=NAME", l)
		}
		if strings.HasPrefix(l, "--array") || strings.HasPrefix(l, "-a") {
			bad("slurm: extra #SBATCH option %q: the sweep sets the array", l)
		}
	}
	if s.Local.Parallel < 1 {
		bad("local: parallel %d; want at least 1", s.Local.Parallel)
	}
	if len(errs) > 0 {
		return fmt.Errorf("sweep: invalid sweep:\n  %s", strings.Join(errs, "\n  "))
	}
	if check != nil {
		for _, cell := range s.Cells() {
			if err := check(cell.Args); err != nil {
				return fmt.Errorf("sweep: cell %s: narlab train %s: %w", cell.Key, strings.Join(cell.Args, " "), err)
			}
		}
	}
	return nil
}

// Cells expands the grid in a fixed order: algorithms, then processors,
// then seeds, then the varied flags in name order (each in the order given).
func (s *Spec) Cells() []Cell {
	varyKeys := make([]string, 0, len(s.Vary))
	for k := range s.Vary {
		varyKeys = append(varyKeys, k)
	}
	sort.Strings(varyKeys)
	fixedKeys := make([]string, 0, len(s.Flags))
	for k := range s.Flags {
		fixedKeys = append(fixedKeys, k)
	}
	sort.Strings(fixedKeys)
	// combos of the varied flags
	combos := []map[string]string{{}}
	for _, k := range varyKeys {
		var next []map[string]string
		for _, c := range combos {
			for _, v := range s.Vary[k] {
				m := map[string]string{k: v}
				for kk, vv := range c {
					m[kk] = vv
				}
				next = append(next, m)
			}
		}
		combos = next
	}
	var cells []Cell
	for _, a := range s.Algorithms {
		for _, p := range s.Processors {
			for _, seed := range s.Seeds {
				for _, combo := range combos {
					key := fmt.Sprintf("%s-%s-s%d", a, p, seed)
					args := []string{"--algo", a, "--processor", p, "--seed", strconv.FormatInt(seed, 10)}
					for _, k := range varyKeys {
						key += "-" + k + "=" + combo[k]
						args = append(args, "--"+k+"="+combo[k])
					}
					for _, k := range fixedKeys {
						args = append(args, "--"+k+"="+s.Flags[k])
					}
					c := Cell{Index: len(cells), Key: key, Algorithm: a, Processor: p, Seed: seed, Args: args}
					if len(combo) > 0 {
						c.Vary = combo
					}
					cells = append(cells, c)
				}
			}
		}
	}
	return cells
}

// ID is the sweep's id: its name and the first 8 hex digits of a hash of
// the experiment and every cell's key and flags. The same grid always has
// the same id, so resubmitting finds its parent run and finished cells.
func (s *Spec) ID() string {
	h := sha256.New()
	fmt.Fprintf(h, "experiment=%q\n", s.Experiment)
	for _, c := range s.Cells() {
		fmt.Fprintf(h, "%s %q\n", c.Key, c.Args)
	}
	return s.Name + "-" + hex.EncodeToString(h.Sum(nil))[:8]
}
