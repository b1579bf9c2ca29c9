package nn

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/narlab/narlab/internal/pickle"
	"github.com/narlab/narlab/lib/clrs"
)

// Reading a dm-clrs checkpoint (see refckpt.go) and inferring the
// configuration of its model from its parameters' names and shapes.

// refCheckpoint is a parsed dm-clrs checkpoint.
type refCheckpoint struct {
	params map[string]*pickle.Array // "module|name"
	adam   *refAdam                 // nil: no Adam state in the file
}

// refAdam is optax's ScaleByAdamState: the step count and the first and
// second moments, keyed as params.
type refAdam struct {
	count  int64
	mu, nu map[string]*pickle.Array
}

// readReference reads and checks a dm-clrs checkpoint file.
func readReference(path string) (*refCheckpoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("nn: %w", err)
	}
	ck, err := parseReference(data)
	if err != nil {
		return nil, fmt.Errorf("nn: %s: %w", path, err)
	}
	return ck, nil
}

// errNotReference prefixes the errors of files that are pickles but not
// dm-clrs checkpoints.
const errNotReference = "not a dm-clrs checkpoint (BaselineModel.save_model's {'params', 'opt_state'} pickle)"

func parseReference(data []byte) (*refCheckpoint, error) {
	v, err := pickle.Decode(data, pickle.Options{Classes: refOptaxClasses})
	if err != nil {
		return nil, err
	}
	top, ok := v.(*pickle.Dict)
	if !ok {
		return nil, fmt.Errorf("%s: the pickle holds a %s, not a dict", errNotReference, pickleType(v))
	}
	pv, ok := top.Get("params")
	if !ok {
		return nil, fmt.Errorf("%s: its dict has no 'params' (keys %v)", errNotReference, top.Keys())
	}
	params, err := refParamDict(pv, "params")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errNotReference, err)
	}
	if len(params) == 0 {
		return nil, fmt.Errorf("%s: 'params' is empty", errNotReference)
	}
	ck := &refCheckpoint{params: params}
	if ov, ok := top.Get("opt_state"); ok && ov != nil {
		if ck.adam, err = refAdamState(ov, params); err != nil {
			return nil, fmt.Errorf("opt_state: %w", err)
		}
	}
	return ck, nil
}

// refParamDict flattens Haiku's {module: {name: array}} into
// "module|name" → float array.
func refParamDict(v any, what string) (map[string]*pickle.Array, error) {
	mods, ok := v.(*pickle.Dict)
	if !ok {
		return nil, fmt.Errorf("'%s' is a %s, not a dict of Haiku modules", what, pickleType(v))
	}
	out := map[string]*pickle.Array{}
	for _, mk := range mods.Keys() {
		mod, ok := mk.(string)
		mv, _ := mods.Get(mk)
		names, ok2 := mv.(*pickle.Dict)
		if !ok || !ok2 {
			return nil, fmt.Errorf("'%s'[%v] is a %s, not a Haiku module's dict of parameters", what, mk, pickleType(mv))
		}
		for _, nk := range names.Keys() {
			name, ok := nk.(string)
			av, _ := names.Get(nk)
			a, ok2 := av.(*pickle.Array)
			if !ok || !ok2 {
				return nil, fmt.Errorf("'%s'[%q][%v] is a %s, not a NumPy array", what, mod, nk, pickleType(av))
			}
			if a.DType[0] != 'f' {
				return nil, fmt.Errorf("'%s'[%q][%q] is a %s array, not a float array", what, mod, name, a.DType)
			}
			out[mod+"|"+name] = a
		}
	}
	return out, nil
}

// refAdamState finds optax's ScaleByAdamState in a chain's state.
func refAdamState(v any, params map[string]*pickle.Array) (*refAdam, error) {
	chain, ok := v.(pickle.Tuple)
	if !ok {
		chain = pickle.Tuple{v}
	}
	var adam *pickle.Object
	for _, s := range chain {
		o, ok := s.(*pickle.Object)
		if !ok {
			return nil, fmt.Errorf("a %s in the optimizer chain's state (want optax states)", pickleType(s))
		}
		if o.Class == "optax._src.transform.ScaleByAdamState" {
			if adam != nil {
				return nil, errors.New("two Adam states (narlab's optimizer is one Adam)")
			}
			adam = o
		}
	}
	if adam == nil {
		return nil, errors.New("no optax ScaleByAdamState (narlab's optimizer is Adam)")
	}
	if len(adam.Args) != 3 {
		return nil, fmt.Errorf("ScaleByAdamState with %d fields, want 3 (count, mu, nu)", len(adam.Args))
	}
	var count int64
	switch c := adam.Args[0].(type) {
	case int64:
		count = c
	case *pickle.Array:
		ints, err := c.Int64s()
		if err != nil || len(ints) != 1 {
			return nil, fmt.Errorf("Adam's count is a %s array of shape %v, want an integer", c.DType, c.Shape)
		}
		count = ints[0]
	default:
		return nil, fmt.Errorf("Adam's count is a %s", pickleType(c))
	}
	if count < 0 || count >= 1<<24 {
		return nil, fmt.Errorf("Adam's count %d (narlab keeps it as a float32: 0 to 2^24)", count)
	}
	st := &refAdam{count: count}
	var err error
	if st.mu, err = refParamDict(adam.Args[1], "mu"); err != nil {
		return nil, err
	}
	if st.nu, err = refParamDict(adam.Args[2], "nu"); err != nil {
		return nil, err
	}
	for _, m := range []map[string]*pickle.Array{st.mu, st.nu} {
		for k, p := range params {
			if a, ok := m[k]; !ok || !slices.Equal(a.Shape, p.Shape) {
				return nil, fmt.Errorf("Adam's moments do not match parameter %s %v", k, p.Shape)
			}
		}
		if len(m) != len(params) {
			return nil, fmt.Errorf("Adam's moments hold %d arrays for %d parameters", len(m), len(params))
		}
	}
	return st, nil
}

func pickleType(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case *pickle.Dict:
		return "dict"
	case *pickle.List:
		return "list"
	case pickle.Tuple:
		return "tuple"
	case *pickle.Array:
		return "NumPy array"
	case *pickle.Object:
		return v.Class
	case string:
		return "str"
	case int64:
		return "int"
	case float64:
		return "float"
	}
	return fmt.Sprintf("%T", v)
}

// refLayout is what a checkpoint's parameter names and shapes say.
type refLayout struct {
	processors []string // the processors whose parameters these are
	hidden     int
	// options are the processor options the parameters imply (heads,
	// triplet features, layer norm) and lstm whether the model has the
	// reference's LSTM (use_lstm).
	options ProcessorOptions
	lstm    bool
	algos   map[int]refProbes // algo_<i>_ → its probes
}

// refProbes are the probes with encoders and with decoders.
type refProbes struct{ enc, dec []string }

var refEncDecName = regexp.MustCompile(`^algo_(\d+)_(.+)_(enc|dec)_linear(?:_\d+)?$`)

// layout reads the processor, hidden size and each algorithm's probes
// from the parameters.
func (ck *refCheckpoint) layout() (*refLayout, error) {
	l := &refLayout{algos: map[int]refProbes{}}
	procModule := ""
	linears := map[string]bool{}
	enc, dec := map[int]map[string]bool{}, map[int]map[string]bool{}
	for _, key := range slices.Sorted(maps.Keys(ck.params)) {
		module, _, _ := strings.Cut(key, "|")
		if rest, ok := strings.CutPrefix(module, refEncDecModule+"/"); ok {
			m := refEncDecName.FindStringSubmatch(rest)
			if m == nil {
				return nil, fmt.Errorf("parameter %s: not an encoder or decoder of dm-clrs's layout", key)
			}
			i, _ := strconv.Atoi(m[1])
			set := enc
			if m[3] == "dec" {
				set = dec
			}
			if set[i] == nil {
				set[i] = map[string]bool{}
			}
			set[i][m[2]] = true
			continue
		}
		if module == refLSTMModule+"/linear" {
			l.lstm = true
			continue
		}
		parts := strings.Split(module, "/")
		if len(parts) < 3 || parts[0] != "net" || !strings.HasSuffix(parts[1], "_clrs_processor") {
			return nil, fmt.Errorf("parameter %s belongs to no part of narlab's model (its encoders and decoders, processor and LSTM)", key)
		}
		if procModule != "" && procModule != parts[1] {
			return nil, fmt.Errorf("parameters of two processors, %s and %s", procModule, parts[1])
		}
		procModule = parts[1]
		if len(parts) == 3 && (parts[2] == "linear" || strings.HasPrefix(parts[2], "linear_")) {
			linears[parts[2]] = true
		}
	}
	if procModule == "" {
		return nil, errors.New("no processor parameters")
	}
	linearCounts, known := referenceModules()[procModule]
	l.processors = referenceCandidates(procModule, len(linears))
	switch {
	case !known:
		var restorable []string
		for m := range referenceModules() {
			restorable = append(restorable, m)
		}
		slices.Sort(restorable)
		return nil, fmt.Errorf("processor module %s: no narlab processor restores it (those of %s do: %s)",
			procModule, strings.Join(ReferenceProcessors(), ", "), strings.Join(restorable, ", "))
	case len(l.processors) == 0:
		return nil, fmt.Errorf("a processor of module %s with %d linear layers (narlab's have %v)", procModule, len(linears), linearCounts)
	}
	// The hidden size: the first linear layer's output (every reference
	// processor's first layer maps [node features, latents] to H).
	first, ok := ck.params["net/"+procModule+"/linear|w"]
	if !ok || len(first.Shape) != 2 || first.Shape[1] < 1 {
		return nil, fmt.Errorf("processor module %s has no linear|w of shape [2H, H]", procModule)
	}
	l.hidden = first.Shape[1]
	l.options = ProcessorOptions{Hidden: l.hidden, Heads: DefaultHeads, TripletFeatures: DefaultTripletFeatures}
	if scale, ok := ck.params["net/"+procModule+"/layer_norm|scale"]; ok {
		if !slices.Equal(scale.Shape, []int{l.hidden}) {
			return nil, fmt.Errorf("layer_norm|scale has shape %v; want [%d]", scale.Shape, l.hidden)
		}
		l.options.LayerNorm = true
	}
	// The options the parameters imply (one processor's layout reads them;
	// the candidates share it).
	if p, ok := LookupProcessor(l.processors[0]); ok && p.Reference.Options != nil {
		shape := func(param string) []int {
			if a, ok := ck.params["net/"+procModule+"/"+param]; ok {
				return a.Shape
			}
			return nil
		}
		if err := p.Reference.Options(shape, len(linears), &l.options); err != nil {
			return nil, fmt.Errorf("processor module %s: %w", procModule, err)
		}
	}
	for i, e := range enc {
		l.algos[i] = refProbes{enc: slices.Sorted(maps.Keys(e)), dec: slices.Sorted(maps.Keys(dec[i]))}
	}
	for i := range dec {
		if _, ok := enc[i]; !ok {
			return nil, fmt.Errorf("algo_%d has decoders but no encoders", i)
		}
	}
	if len(l.algos) == 0 {
		return nil, errors.New("no encoders or decoders")
	}
	return l, nil
}

// refFit is a configuration of one algorithm whose probes a checkpoint's
// encoders and decoders are.
type refFit struct {
	algorithm                 string
	hintMode                  string
	permutations, predAsInput bool
}

// probeNames are an algorithm's probes under the transforms.
type probeNames struct{ inputs, hints, outputs []string }

var probeNameCache sync.Map // "algo|perm|pai" → probeNames or error

// transformedProbes returns an algorithm's probe names after the
// configuration's transforms, from a sample, as New lays them out.
func transformedProbes(algo string, perms, pai bool) (probeNames, error) {
	key := fmt.Sprintf("%s|%v|%v", algo, perms, pai)
	if v, ok := probeNameCache.Load(key); ok {
		if err, bad := v.(error); bad {
			return probeNames{}, err
		}
		return v.(probeNames), nil
	}
	var pn probeNames
	s, err := clrs.NewSampler(algo, clrs.Length(5), clrs.Seed(1), clrs.NumSamples(1))
	var fb *clrs.Feedback
	if err == nil {
		fb, err = s.Dataset()
	}
	if err == nil {
		fb, err = Config{Permutations: perms, PredAsInput: pai}.Transform(fb)
	}
	if err != nil {
		probeNameCache.Store(key, err)
		return pn, err
	}
	for _, sec := range []struct {
		dps []clrs.DataPoint
		dst *[]string
	}{{fb.Inputs, &pn.inputs}, {fb.Hints, &pn.hints}, {fb.Outputs, &pn.outputs}} {
		for _, d := range sec.dps {
			*sec.dst = append(*sec.dst, d.Name)
		}
	}
	probeNameCache.Store(key, pn)
	return pn, nil
}

// fits returns the configurations under which an algorithm's encoders and
// decoders are exactly p's. The transforms that change nothing for an
// algorithm take DefaultConfig's value (on).
func (p refProbes) fits(algo string) []refFit { return p.fitsWith(algo, true) }

// fitsWith is fits, or, with distinct false, every setting of the
// transforms that fits, also those that change nothing for algo.
func (p refProbes) fitsWith(algo string, distinct bool) []refFit {
	var out []refFit
	seen := map[string]bool{}
	for _, perms := range []bool{true, false} {
		for _, pai := range []bool{true, false} {
			pn, err := transformedProbes(algo, perms, pai)
			if err != nil {
				continue
			}
			sig := fmt.Sprint(pn)
			if distinct && seen[sig] {
				continue
			}
			seen[sig] = true
			for _, mode := range HintModes {
				enc, dec := slices.Clone(pn.inputs), slices.Clone(pn.outputs)
				if mode == "encoded_decoded" {
					enc = append(enc, pn.hints...)
				}
				if mode != "none" {
					dec = append(dec, pn.hints...)
				}
				slices.Sort(enc)
				slices.Sort(dec)
				if slices.Equal(enc, p.enc) && slices.Equal(dec, p.dec) {
					out = append(out, refFit{algorithm: algo, hintMode: mode, permutations: perms, predAsInput: pai})
				}
			}
		}
	}
	return out
}

// infer picks the configuration of a checkpoint: the algorithm index, the
// model's Config and the processor.
func (ck *refCheckpoint) infer(opts ReferenceOptions) (Config, int, error) {
	l, err := ck.layout()
	if err != nil {
		return Config{}, 0, err
	}
	proc := opts.Processor
	switch {
	case proc != "" && !slices.Contains(l.processors, proc):
		if _, err := lookupProcessor(proc); err != nil {
			return Config{}, 0, err
		}
		return Config{}, 0, fmt.Errorf("its processor parameters are those of %s, not %s", strings.Join(l.processors, ", "), proc)
	case proc == "" && len(l.processors) > 1:
		return Config{}, 0, fmt.Errorf("its processor parameters fit %s (dm-clrs checkpoints do not record which adjacency the processor aggregates over): name the processor (ReferenceOptions.Processor, narlab eval --processor)",
			strings.Join(l.processors, ", "))
	case proc == "":
		proc = l.processors[0]
	}
	if opts.Algorithm != "" && !slices.Contains(clrs.Algorithms(), opts.Algorithm) {
		return Config{}, 0, fmt.Errorf("unknown algorithm %q", opts.Algorithm)
	}
	if opts.Algorithm != "" && len(opts.Algorithms) > 0 {
		return Config{}, 0, errors.New("both ReferenceOptions.Algorithm (load one algorithm) and Algorithms (load them all) given")
	}
	if len(opts.Algorithms) > 0 || (len(l.algos) > 1 && opts.Algorithm == "") {
		cfg, err := l.inferSeveral(proc, opts)
		return cfg, 0, err
	}
	type indexed struct {
		index int
		fits  []refFit
	}
	var found []indexed
	var described []string
	for _, i := range slices.Sorted(maps.Keys(l.algos)) {
		p := l.algos[i]
		var fits []refFit
		algos := clrs.Algorithms()
		if opts.Algorithm != "" {
			algos = []string{opts.Algorithm}
		}
		for _, a := range algos {
			fits = append(fits, p.fits(a)...)
		}
		names := map[string]bool{}
		for _, f := range fits {
			names[f.algorithm] = true
		}
		described = append(described, fmt.Sprintf("algo_%d (encoders %s; decoders %s) fits %s", i,
			strings.Join(p.enc, ","), strings.Join(p.dec, ","), orNone(slices.Sorted(maps.Keys(names)))))
		if len(fits) > 0 {
			found = append(found, indexed{i, fits})
		}
	}
	var what string
	if opts.Algorithm != "" {
		what = opts.Algorithm
	} else {
		what = "any algorithm narlab has"
	}
	switch {
	case len(found) == 0:
		return Config{}, 0, fmt.Errorf("its encoders and decoders do not fit %s under narlab's hint modes and transforms: %s", what, strings.Join(described, "; "))
	case len(found) > 1:
		return Config{}, 0, fmt.Errorf("it holds several algorithms: %s; name one (ReferenceOptions.Algorithm, narlab eval --algo)", strings.Join(described, "; "))
	}
	fits := found[0].fits
	algos := map[string]bool{}
	for _, f := range fits {
		algos[f.algorithm] = true
	}
	if len(algos) > 1 {
		return Config{}, 0, fmt.Errorf("its probes fit several algorithms (%s): name the algorithm (ReferenceOptions.Algorithm, narlab eval --algo)", strings.Join(slices.Sorted(maps.Keys(algos)), ", "))
	}
	if len(fits) > 1 {
		return Config{}, 0, fmt.Errorf("its probes fit %s under %d settings", fits[0].algorithm, len(fits))
	}
	f := fits[0]
	cfg := DefaultConfig(f.algorithm, proc)
	if opts.Config != nil {
		cfg = *opts.Config
	}
	cfg.Algorithm, cfg.Processor, cfg.Hidden = f.algorithm, proc, l.hidden
	cfg.HintMode, cfg.Permutations, cfg.PredAsInput = f.hintMode, f.permutations, f.predAsInput
	l.setOptions(&cfg, proc)
	return cfg, found[0].index, nil
}

// setOptions sets the model options the parameters say (heads, triplet
// features, layer norm, the LSTM) in cfg, a model of processor proc.
func (l *refLayout) setOptions(cfg *Config, proc string) {
	cfg.Heads, cfg.TripletFeatures, cfg.NoLayerNorm, cfg.LSTM = l.options.Heads, l.options.TripletFeatures, !l.options.LayerNorm, l.lstm
	if !l.lstm {
		cfg.TrainLSTM = false
	}
	if p, _ := LookupProcessor(proc); !p.Heads {
		cfg.Heads = DefaultHeads
	}
	if p, _ := LookupProcessor(proc); !p.Triplets {
		cfg.TripletFeatures = DefaultTripletFeatures
	}
}

// inferSeveral picks the configuration of a checkpoint of several
// algorithms as one model of them all: each algo_<i> must fit exactly one
// algorithm (opts.Algorithms[i] when given), and all of them one hint mode
// and one setting of the transforms (DefaultConfig's where the transforms
// change nothing).
func (l *refLayout) inferSeveral(proc string, opts ReferenceOptions) (Config, error) {
	k := len(l.algos)
	if len(opts.Algorithms) > 0 && len(opts.Algorithms) != k {
		return Config{}, fmt.Errorf("it holds %d algorithms; %d named (%s)", k, len(opts.Algorithms), strings.Join(opts.Algorithms, ","))
	}
	if k < 2 {
		return Config{}, fmt.Errorf("it holds one algorithm; load it by ReferenceOptions.Algorithm")
	}
	names := make([]string, k)
	count := map[refFit]int{} // each setting (the algorithm blanked), by how many indices fit it
	for i := 0; i < k; i++ {
		p, ok := l.algos[i]
		if !ok {
			return Config{}, fmt.Errorf("it has no algo_%d among its %d algorithms", i, k)
		}
		cands := clrs.Algorithms()
		if len(opts.Algorithms) > 0 {
			if !slices.Contains(cands, opts.Algorithms[i]) {
				return Config{}, fmt.Errorf("unknown algorithm %q", opts.Algorithms[i])
			}
			cands = opts.Algorithms[i : i+1]
		}
		seen := map[refFit]bool{}
		algos := map[string]bool{}
		for _, a := range cands {
			for _, f := range p.fitsAny(a) {
				algos[f.algorithm] = true
				f.algorithm = ""
				seen[f] = true
			}
		}
		switch len(algos) {
		case 0:
			what := "narlab has"
			if len(opts.Algorithms) > 0 {
				what = "named: " + opts.Algorithms[i]
			}
			return Config{}, fmt.Errorf("algo_%d (encoders %s; decoders %s) fits no algorithm %s", i, strings.Join(p.enc, ","),
				strings.Join(p.dec, ","), what)
		case 1:
		default:
			return Config{}, fmt.Errorf("algo_%d's probes fit several algorithms (%s): name them in order (ReferenceOptions.Algorithms, narlab eval --algo a,b,c)",
				i, strings.Join(slices.Sorted(maps.Keys(algos)), ", "))
		}
		for a := range algos {
			names[i] = a
		}
		if j := slices.Index(names[:i], names[i]); j >= 0 {
			return Config{}, fmt.Errorf("algo_%d and algo_%d are both %s: narlab's model of several algorithms holds each once", j, i, names[i])
		}
		for f := range seen {
			count[f]++
		}
	}
	var common []refFit
	for f, n := range count {
		if n == k {
			common = append(common, f)
		}
	}
	if len(common) == 0 {
		return Config{}, fmt.Errorf("its algorithms (%s) fit no one hint mode and setting of the transforms", strings.Join(names, ","))
	}
	// DefaultConfig's transforms (on) where they change nothing.
	slices.SortFunc(common, func(a, b refFit) int {
		key := func(f refFit) int {
			n := 0
			if !f.permutations {
				n += 2
			}
			if !f.predAsInput {
				n++
			}
			return n
		}
		return key(a) - key(b)
	})
	f := common[0]
	if len(common) > 1 && common[1].hintMode != f.hintMode {
		return Config{}, fmt.Errorf("its algorithms (%s) fit several hint modes", strings.Join(names, ","))
	}
	cfg := DefaultConfig("", proc)
	if opts.Config != nil {
		cfg = *opts.Config
	}
	cfg.Algorithm, cfg.Algorithms, cfg.Processor, cfg.Hidden = "", names, proc, l.hidden
	cfg.HintMode, cfg.Permutations, cfg.PredAsInput = f.hintMode, f.permutations, f.predAsInput
	l.setOptions(&cfg, proc)
	return cfg, nil
}

// fitsAny returns every configuration (of the four settings of the
// transforms, whether they change the algorithm's probes or not) under
// which algo's encoders and decoders are exactly p's.
func (p refProbes) fitsAny(algo string) []refFit { return p.fitsWith(algo, false) }

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}
