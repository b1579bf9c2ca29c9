package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/narlab/narlab/experiments/clrs30"
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
	fmt.Fprintf(stdout, "wrote %s: %s\n", *out, cfg.ReferenceDescription())
	fmt.Fprintln(stdout, "dm-clrs 2.0.3 restores it with BaselineModel.restore_model after init, the model built as:")
	for _, l := range cfg.ReferenceSettings() {
		fmt.Fprintln(stdout, "  "+l)
	}
	return nil
}
