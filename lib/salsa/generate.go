package salsa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/lib/clrs"
)

// Hints says which sets keep their hints.
type Hints uint8

// Hint policies. The zero value is SALSA-CLRS's: its training set has
// hints, its validation and test sets are generated without
// (ignore_all_hints), which also keeps them small: dfs on 1,600 nodes has
// 4,800 hint steps of 1,600 nodes.
const (
	HintsTrain Hints = iota // hints for the train split only
	HintsAll                // hints everywhere
	HintsNone               // no hints (lengths are still written)
)

var hintNames = [...]string{"train", "all", "none"}

// String returns "train", "all" or "none".
func (h Hints) String() string {
	if int(h) < len(hintNames) {
		return hintNames[h]
	}
	return fmt.Sprintf("Hints(%d)", h)
}

// ParseHints parses "train", "all" or "none".
func ParseHints(s string) (Hints, error) {
	for i, n := range hintNames {
		if n == s {
			return Hints(i), nil
		}
	}
	return 0, fmt.Errorf("salsa: unknown hint policy %q (want train, all or none)", s)
}

// keep reports whether a set of this split keeps its hints.
func (h Hints) keep(split string) bool {
	return h == HintsAll || (h == HintsTrain && split == "train")
}

// Config says what Generate writes.
type Config struct {
	// Out is the output directory (created if needed).
	Out string
	// Algorithms and Sets select the files, one per pair; nil means all
	// six algorithms, all 17 sets.
	Algorithms, Sets []string
	Seed             uint32
	// Count is the number of samples per set; 0 means SALSA-CLRS's sizes
	// (10,000 train, 1,000 val and test).
	Count int
	Hints Hints
	// Compress deflates the arrays (numpy.load reads both).
	Compress bool
	// Workers is the number of sampling goroutines (0: GOMAXPROCS).
	Workers int
	// MaxBytes, when positive, refuses a request before any work when a
	// file's samples would take more memory than this (EstimateBytes):
	// Generate holds one file's samples at a time.
	MaxBytes float64
	// Progress, if set, is called as samples are done: over all files,
	// and the file being sampled.
	Progress func(done, total int, file string)
}

// ManifestVersion names the layout of the files and the manifest.
const ManifestVersion = "narlab-salsa/1"

// Manifest describes a directory written by Generate (manifest.json).
type Manifest struct {
	Format     string         `json:"format"`
	Seed       uint32         `json:"seed"`
	Compressed bool           `json:"compressed"`
	Files      []ManifestFile `json:"files"`
}

// ManifestFile describes one .npz file.
type ManifestFile struct {
	File      string      `json:"file"`
	Algorithm string      `json:"algorithm"`
	Set       string      `json:"set"`
	Split     string      `json:"split"`
	Family    FamilyJSON  `json:"family"`
	Samples   int         `json:"samples"`
	Hints     bool        `json:"hints"`
	MaxLength int         `json:"max_length"`
	Nodes     int         `json:"nodes"`
	Edges     int         `json:"edges"`
	Probes    []ProbeJSON `json:"probes"`
}

// FamilyJSON is a Family as the manifest writes it.
type FamilyJSON struct {
	Kind string    `json:"kind"`
	N    []int     `json:"n"`
	P    []float64 `json:"p,omitempty"`
	K    []int     `json:"k,omitempty"`
}

// ProbeJSON is a probe as the manifest writes it.
type ProbeJSON struct {
	Name     string `json:"name"`
	Stage    string `json:"stage"`
	Location string `json:"location"`
	Type     string `json:"type"`
}

// FileName returns the name of an algorithm's file for a set:
// ALGO_SET.npz (bfs_er_16.npz, dfs_train.npz).
func FileName(algo, set string) string { return algo + "_" + set + ".npz" }

// Generate writes one .npz file per algorithm and set, and manifest.json,
// into cfg.Out. The files appear together once all are written (an
// interrupted or failed run leaves none, and the files already there are
// kept until then). It returns the manifest.
func Generate(ctx context.Context, cfg Config) (*Manifest, error) {
	algos, setList, err := cfg.selection()
	if err != nil {
		return nil, err
	}
	if cfg.Out == "" {
		return nil, errors.New("salsa: no output directory")
	}
	if err := fsutil.CheckCreatableDir(cfg.Out); err != nil {
		return nil, fmt.Errorf("salsa: %w", err)
	}
	total := 0
	for _, s := range setList {
		total += cmpOr(cfg.Count, s.Samples) * len(algos)
	}
	_, statErr := os.Stat(cfg.Out)
	outExisted := statErr == nil
	var batch fsutil.Batch
	fail := func(err error) (*Manifest, error) {
		batch.Abort()
		if !outExisted {
			os.Remove(cfg.Out) // the directory this run made, when empty
		}
		return nil, err
	}
	opts := []clrs.NPZOption{clrs.SaveWith(func(path string, write func(io.Writer) error) error {
		return batch.Write(path, fsutil.DataMode, write)
	})}
	if cfg.Compress {
		opts = append(opts, clrs.Compressed())
	}
	m := &Manifest{Format: ManifestVersion, Seed: cfg.Seed, Compressed: cfg.Compress, Files: []ManifestFile{}}
	done := 0
	for _, algo := range algos {
		for _, set := range setList {
			name := FileName(algo, set.Name)
			base := done
			d, err := NewDataset(ctx, algo, set, cfg.Seed, cfg.Count, cfg.Hints.keep(set.Split), DatasetOptions{
				Workers: cfg.Workers,
				Progress: func(k int) {
					if cfg.Progress != nil {
						cfg.Progress(base+k, total, name)
					}
				}})
			if err != nil {
				return fail(err)
			}
			done += d.Len()
			if err := d.SaveNPZ(filepath.Join(cfg.Out, name), opts...); err != nil {
				return fail(err)
			}
			m.Files = append(m.Files, d.manifestFile(name))
		}
	}
	if err := ctx.Err(); err != nil {
		return fail(context.Cause(ctx))
	}
	err = batch.Write(filepath.Join(cfg.Out, "manifest.json"), fsutil.DataMode, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	})
	if err != nil {
		return fail(err)
	}
	if err := batch.Commit(); err != nil {
		return nil, fmt.Errorf("salsa: %w", err)
	}
	return m, nil
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// selection checks the configuration and returns the algorithms and sets.
func (cfg Config) selection() ([]string, []Set, error) {
	algos := cfg.Algorithms
	if algos == nil {
		algos = Algorithms()
	}
	names := cfg.Sets
	if names == nil {
		names = SetNames()
	}
	if len(algos) == 0 || len(names) == 0 {
		return nil, nil, errors.New("salsa: no algorithm or no set selected")
	}
	for i, a := range algos {
		if err := checkAlgorithm(a); err != nil {
			return nil, nil, err
		}
		if slices.Contains(algos[:i], a) {
			return nil, nil, fmt.Errorf("salsa: algorithm %s is selected twice", a)
		}
	}
	var out []Set
	for i, n := range names {
		s, err := LookupSet(n)
		if err != nil {
			return nil, nil, err
		}
		if slices.Contains(names[:i], n) {
			return nil, nil, fmt.Errorf("salsa: set %s is selected twice", n)
		}
		out = append(out, s)
	}
	if cfg.Count < 0 {
		return nil, nil, fmt.Errorf("salsa: count %d; want a number of samples >= 1, or 0 for SALSA-CLRS's sizes", cfg.Count)
	}
	if cfg.Hints > HintsNone {
		return nil, nil, fmt.Errorf("salsa: unknown hint policy %v", cfg.Hints)
	}
	if cfg.MaxBytes > 0 {
		for _, a := range algos {
			for _, s := range out {
				b, err := EstimateBytes(a, s, cfg.Count, cfg.Hints.keep(s.Split))
				if err != nil {
					return nil, nil, err
				}
				if b > cfg.MaxBytes {
					return nil, nil, fmt.Errorf("salsa: %s on %s needs about %.3g GB in memory, more than the %.3g GB allowed; draw fewer samples or drop its hints (dfs keeps 3n hint steps of 12n values: about 740 MB a sample on 1,600 nodes)",
						a, s.Name, b/1e9, cfg.MaxBytes/1e9)
				}
			}
		}
	}
	return algos, out, nil
}

func (d *Dataset) manifestFile(name string) ManifestFile {
	nodes, edges := d.Size()
	f := d.Set.Family
	fam := FamilyJSON{Kind: f.Kind.String(), N: f.N, K: f.K}
	if f.Kind != Delaunay {
		fam.P = f.P[:]
	}
	var probes []ProbeJSON
	for _, p := range Specs[d.Algorithm] {
		if p.Stage == clrs.Hint && !d.Hints {
			continue
		}
		probes = append(probes, ProbeJSON{Name: p.Name, Stage: p.Stage.String(), Location: p.Location.String(), Type: p.Type.String()})
	}
	return ManifestFile{File: name, Algorithm: d.Algorithm, Set: d.Set.Name, Split: d.Set.Split, Family: fam,
		Samples: d.Len(), Hints: d.Hints, MaxLength: d.MaxLength(), Nodes: nodes, Edges: edges, Probes: probes}
}

// ReadManifest reads a directory's manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("salsa: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("salsa: manifest.json: %w", err)
	}
	if m.Format != ManifestVersion {
		return nil, fmt.Errorf("salsa: manifest.json has format %q; this narlab reads %q", m.Format, ManifestVersion)
	}
	return &m, nil
}
