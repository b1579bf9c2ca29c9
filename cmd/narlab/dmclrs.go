package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/narlab/narlab/experiments/clrs30"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn"
)

// dm-clrs checkpoints: `narlab eval` of a BaselineModel.save_model pickle
// and `narlab clrs export` of a narlab checkpoint (docs/baselines.md,
// "dm-clrs checkpoints").

func init() {
	register(command{group: "clrs", name: "export", summary: "write a narlab checkpoint as a dm-clrs checkpoint (BaselineModel.restore_model's pickle)", run: exportCmd})
}

// dmclrsFlags adds the flags that name what a dm-clrs checkpoint's
// parameters cannot say; finish, after parsing, sets the options' model
// settings (nil when none was given) and reports whether any was.
func dmclrsFlags(fs *flag.FlagSet) (o *nn.ReferenceOptions, finish func() bool) {
	o = &nn.ReferenceOptions{}
	d := nn.DefaultConfig("", nn.DefaultProcessor)
	fs.Func("algo", "dm-clrs checkpoints: the algorithm, where its parameters fit several (insertion_sort and bubble_sort share theirs); "+
		"of a checkpoint of several algorithms, the one to load alone, or all of them in order, comma-separated (bfs,dfs,insertion_sort); default: inferred",
		func(v string) error {
			if strings.Contains(v, ",") {
				o.Algorithm, o.Algorithms = "", strings.Split(v, ",")
			} else {
				o.Algorithm, o.Algorithms = v, nil
			}
			return nil
		})
	fs.StringVar(&o.Processor, "processor", "", "dm-clrs checkpoints: the processor, where its parameters fit several (mpnn, pgn, pgn_mask and deepsets share theirs; gat and gat_full; gatv2 and gatv2_full); default: inferred")
	steps := fs.Int("nb-msg-passing-steps", d.MsgPassingSteps, "dm-clrs checkpoints: processor calls per algorithm step, which its parameters do not record")
	repred := fs.String("hint-repred", d.HintRepred, "dm-clrs checkpoints: how predicted hints are fed back ("+strings.Join(nn.HintRepredModes, ", ")+"), which its parameters do not record")
	finish = func() bool {
		set := false
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == "nb-msg-passing-steps" || f.Name == "hint-repred" })
		if set {
			cfg := d
			cfg.MsgPassingSteps, cfg.HintRepred = *steps, *repred
			o.Config = &cfg
		}
		return set || o.Algorithm != "" || len(o.Algorithms) > 0 || o.Processor != ""
	}
	return o, finish
}

// describeConfig is a model's configuration in a line.
func describeConfig(c nn.Config) string {
	s := fmt.Sprintf("%s, processor %s, hidden %d, hints %s, enforce_permutations %v, enforce_pred_as_input %v",
		strings.Join(c.AlgorithmNames(), ","), c.Processor, c.Hidden, c.HintMode, c.Permutations, c.PredAsInput)
	if p, ok := nn.LookupProcessor(c.Processor); ok && p.Heads {
		s += fmt.Sprintf(", nb_heads %d", c.Heads)
	}
	if p, ok := nn.LookupProcessor(c.Processor); ok && p.Triplets {
		s += fmt.Sprintf(", nb_triplet_fts %d", c.TripletFeatures)
	}
	if c.NoLayerNorm {
		s += ", use_ln False"
	}
	if c.LSTM {
		s += ", use_lstm True"
	}
	if c.MsgPassingSteps > 1 {
		s += fmt.Sprintf(", nb_msg_passing_steps %d", c.MsgPassingSteps)
	}
	if c.HintRepred != "soft" {
		s += ", hint_repred_mode " + c.HintRepred
	}
	return s
}

func exportCmd(args []string) error {
	fs := newFlags("clrs export")
	ckpt := fs.String("checkpoint", "", "narlab checkpoint directory (required): the one train printed, e.g. data/train/bfs-mpnn-s42-8f38d2ac/best")
	out := fs.String("out", "", "the dm-clrs checkpoint file to write (required), e.g. bfs-mpnn.pkl")
	backend := fs.String("backend", "", backendUsage)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *ckpt == "" || *out == "" {
		fs.Usage()
		return fmt.Errorf("clrs export: --checkpoint and --out are required")
	}
	cfg, err := clrs30.ExportReference(*ckpt, *out, *backend)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %s\n", *out, describeConfig(cfg))
	fmt.Fprintln(stdout, "dm-clrs 2.0.3 restores it with BaselineModel.restore_model after init, the model built as:")
	for _, l := range dmclrsSettings(cfg) {
		fmt.Fprintln(stdout, "  "+l)
	}
	return nil
}

// dmclrsSettings are the BaselineModel settings a checkpoint of cfg
// restores into (the names of dm-clrs 2.0.3's constructor and run.py).
func dmclrsSettings(c nn.Config) []string {
	encode, decode := "True", "True"
	switch c.HintMode {
	case "decoded_only":
		encode = "False"
	case "none":
		encode, decode = "False", "False"
	}
	py := func(b bool) string {
		if b {
			return "True"
		}
		return "False"
	}
	transforms := []string{fmt.Sprintf("spec, it = clrs.process_permutations(spec, it, %s)", py(c.Permutations))}
	var pai []string
	for _, a := range c.AlgorithmNames() {
		if c.PredAsInput && slices.Contains(clrs.PredAsInputAlgorithms, a) {
			pai = append(pai, a)
		}
	}
	switch {
	case len(c.Algorithms) > 0 && len(pai) > 0:
		transforms = append(transforms, "spec, it = clrs.process_pred_as_input(spec, it)  # for "+strings.Join(pai, ", "))
	case len(pai) > 0:
		transforms = append(transforms, "spec, it = clrs.process_pred_as_input(spec, it)")
	}
	if len(c.Algorithms) > 0 {
		transforms = append(transforms, fmt.Sprintf("spec=[the specs of %s, in this order] (algorithm_index i is the i-th): one processor, each algorithm's encoders and decoders algo_<i>_…",
			strings.Join(c.Algorithms, ", ")))
	}
	clip := c.GradClip
	if c.NoGradClip {
		clip = 0 // the reference's "no clipping"
	}
	lines := []string{
		fmt.Sprintf("processor_factory=clrs.get_processor_factory(%q, use_ln=%s, nb_triplet_fts=%d, nb_heads=%d)", c.Processor,
			py(!c.NoLayerNorm), c.TripletFeatures, c.Heads),
		fmt.Sprintf("hidden_dim=%d, encode_hints=%s, decode_hints=%s, hint_repred_mode=%q,", c.Hidden, encode, decode, c.HintRepred),
		fmt.Sprintf("learning_rate=%g, grad_clip_max_norm=%g, hint_teacher_forcing=%g, nb_msg_passing_steps=%d,", c.LearningRate, clip,
			c.TeacherForcing, c.MsgPassingSteps),
		fmt.Sprintf("use_lstm=%s, dropout_prob=%g, encoder_init=%q, freeze_processor=%s,", py(c.LSTM), c.Dropout, c.EncoderInit,
			py(c.FreezeProcessor)),
	}
	if c.TrainLSTM {
		lines = append(lines, "(narlab trained the LSTM, which dm-clrs never trains: it restores its values and keeps them)")
	}
	lines = append(lines, "its spec and dummy_trajectory transformed as run.py does:")
	return append(lines, transforms...)
}
