package salsaclrs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/narlab/narlab/lib/nn"
	"github.com/narlab/narlab/lib/salsa"
	"github.com/narlab/narlab/lib/trainloop"
	"github.com/narlab/narlab/tracking"
)

// An algorithm's training runs on lib/trainloop. With a run directory
// (Config.Dir) it is checkpointed at every evaluation: DIR/ALGO/last holds
// the model (parameters, optimizer and random states) with state.json, the
// loop's state and the settings; DIR/ALGO/best the best validation's
// model. An interrupted training resumes from last/ exactly: the batches of
// the steps done are drawn again and skipped, so the steps after it see
// the batches an uninterrupted run would.

// stateFile is the loop's state inside last/.
const stateFile = "state.json"

// trainState is last/state.json.
type trainState struct {
	Params map[string]string `json:"params"`
	trainloop.State
}

// training is one algorithm's model, data and loop state.
type training struct {
	cfg  *Config
	algo string
	// newModel and load build a model and load a checkpoint on the run's
	// backend.
	newModel func(nn.Config) (*nn.Sparse, error)
	load     func(dir string) (*nn.Sparse, error)
	m        *nn.Sparse
	st       trainState
	graphs   []*salsa.Trajectory // the training set
	val      []*nn.SparseBatch
	// dir is DIR/ALGO ("" without Config.Dir); restore, without a
	// directory, puts the best validation's parameters back.
	dir     string
	restore func() error
}

// newTraining resumes the algorithm's training from its directory, or
// starts one, and draws its training and validation sets.
func newTraining(ctx context.Context, cfg *Config, algo string) (*training, error) {
	be, _, err := nn.BackendChoice(cfg.Backend) // cached: the one backend of the run
	if err != nil {
		return nil, err
	}
	tr := &training{cfg: cfg, algo: algo,
		newModel: func(c nn.Config) (*nn.Sparse, error) { return nn.NewSparse(be, c) },
		load:     func(dir string) (*nn.Sparse, error) { return nn.LoadSparse(be, dir) }}
	if cfg.Dir != "" {
		tr.dir = filepath.Join(cfg.Dir, algo)
	}
	if err := tr.resume(); err != nil {
		return nil, err
	}
	trainSet, _ := salsa.LookupSet("train")
	valSet, _ := salsa.LookupSet("val")
	cfg.say("%s: drawing %d training and %d validation graphs", algo, cfg.TrainSamples, cfg.ValSamples)
	train, err := salsa.NewDataset(ctx, algo, trainSet, cfg.DataSeed, cfg.TrainSamples, cfg.HintMode != "none", salsa.DatasetOptions{})
	if err != nil {
		tr.close()
		return nil, err
	}
	val, err := salsa.NewDataset(ctx, algo, valSet, cfg.DataSeed, cfg.ValSamples, false, salsa.DatasetOptions{})
	if err != nil {
		tr.close()
		return nil, err
	}
	tr.graphs = train.Trajectories
	if tr.val, err = batches(tr.m, val.Trajectories, cfg.NodesPerBatch); err != nil {
		tr.close()
		return nil, err
	}
	return tr, nil
}

// resume loads last/ when the directory holds a training of these
// settings, else builds a new model.
func (tr *training) resume() error {
	params := tr.cfg.Params(tr.algo)
	last := filepath.Join(tr.dir, "last")
	raw, err := os.ReadFile(filepath.Join(last, stateFile))
	if tr.dir == "" || errors.Is(err, fs.ErrNotExist) {
		mcfg := nn.DefaultConfig(tr.algo, tr.cfg.Processor)
		mcfg.Hidden, mcfg.HintMode, mcfg.LearningRate, mcfg.Seed = tr.cfg.Hidden, tr.cfg.HintMode, tr.cfg.LR, tr.cfg.Seed
		tr.st = trainState{Params: params, State: trainloop.State{BestVal: -1}}
		tr.m, err = tr.newModel(mcfg)
		return err
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &tr.st); err != nil {
		return fmt.Errorf("salsaclrs: %s: %w (remove %s to train %s again)", filepath.Join(last, stateFile), err, tr.dir, tr.algo)
	}
	if err := sameParams(filepath.Join(last, stateFile), tr.st.Params, params); err != nil {
		return err
	}
	if tr.m, err = tr.load(last); err != nil {
		return fmt.Errorf("salsaclrs: resuming %s: %w", tr.algo, err)
	}
	if int(tr.m.Step()) != tr.st.Step {
		tr.m.Close()
		return fmt.Errorf("salsaclrs: %s: state.json is at step %d but the checkpoint at %d (remove %s to train %s again)",
			last, tr.st.Step, tr.m.Step(), tr.dir, tr.algo)
	}
	tr.cfg.say("%s: resuming the training at step %d (%s)", tr.algo, tr.st.Step, last)
	return nil
}

func (tr *training) close() {
	if tr.val != nil {
		release(tr.val)
		tr.val = nil
	}
	if tr.m != nil {
		tr.m.Close()
	}
}

// train runs the loop to Config.Steps (logging to run, when not nil) and
// leaves the best validation's parameters in the model.
func (tr *training) train(ctx context.Context, run *tracking.Run) error {
	cfg := tr.cfg
	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), 7))
	for range tr.st.Step * cfg.Batch {
		rng.IntN(len(tr.graphs)) // the picks of the steps done
	}
	// Every training batch padded to one shape: one compiled program.
	maxN := 0
	for _, t := range tr.graphs {
		maxN = max(maxN, t.Graph.N)
	}
	pad := nn.PadTo(cfg.Batch*maxN+1, cfg.Batch*maxN*maxN+1)
	loop := trainloop.Loop{Steps: cfg.Steps, EvalEvery: cfg.EvalEvery,
		Step: func(_ context.Context, _ int) (float64, error) {
			picked := make([]*salsa.Trajectory, cfg.Batch)
			for i := range picked {
				picked[i] = tr.graphs[rng.IntN(len(tr.graphs))]
			}
			b, err := tr.m.Batch(picked, pad)
			if err != nil {
				return 0, err
			}
			defer b.Release()
			return tr.m.TrainStep(b)
		},
		Eval: func(context.Context, int) (map[string]float64, error) {
			sc, err := tr.m.Evaluate(tr.val)
			return protocolScores(sc), err
		},
		Checkpoint: func(_ *trainloop.State, best bool) error { return tr.checkpoint(best) },
	}
	logged := metricsTo(run)
	loop.Observers = append(loop.Observers, logged, tr.progress())
	if cfg.afterStep != nil {
		loop.Observers = append(loop.Observers, trainloop.ObserverFunc(func(e trainloop.Event) {
			if e.Kind == trainloop.Stepped {
				cfg.afterStep(tr.algo, e.Step)
			}
		}))
	}
	_, err := loop.Run(ctx, &tr.st.State)
	if errors.Is(err, trainloop.ErrInterrupted) {
		return tr.interrupted(ctx)
	}
	if err != nil {
		return err
	}
	if logged.err != nil {
		return fmt.Errorf("salsaclrs: %s: logging to MLflow: %w", tr.algo, logged.err)
	}
	return tr.useBest()
}

// checkpoint keeps the best validation's parameters (in best/, or in
// memory without a directory) and saves last/.
func (tr *training) checkpoint(best bool) error {
	switch {
	case best && tr.dir != "":
		if err := tr.m.SaveWith(filepath.Join(tr.dir, "best"), nil); err != nil {
			return err
		}
	case best:
		var err error
		if tr.restore, err = tr.m.Snapshot(); err != nil {
			return err
		}
	}
	return tr.saveLast()
}

// saveLast writes last/ (nothing without a directory).
func (tr *training) saveLast() error {
	if tr.dir == "" {
		return nil
	}
	data, err := json.Marshal(tr.st)
	if err != nil {
		return err
	}
	return tr.m.SaveWith(filepath.Join(tr.dir, "last"), map[string][]byte{stateFile: append(data, '\n')})
}

// interrupted saves the steps done and says how to go on.
func (tr *training) interrupted(ctx context.Context) error {
	if tr.dir == "" {
		return fmt.Errorf("salsaclrs: %s interrupted after %d steps: %w", tr.algo, tr.st.Step, ctx.Err())
	}
	if err := tr.saveLast(); err != nil {
		return fmt.Errorf("salsaclrs: %s interrupted after %d steps, and saving them failed: %w", tr.algo, tr.st.Step, err)
	}
	return fmt.Errorf("salsaclrs: %s interrupted after %d steps, saved in %s (run the same command again to resume): %w",
		tr.algo, tr.st.Step, filepath.Join(tr.dir, "last"), ctx.Err())
}

// useBest puts the best validation's parameters in the model.
func (tr *training) useBest() error {
	switch {
	case tr.st.BestStep == 0:
		return nil
	case tr.dir == "":
		return tr.restore()
	}
	best, err := tr.load(filepath.Join(tr.dir, "best"))
	if err != nil {
		return fmt.Errorf("salsaclrs: %s: %w", tr.algo, err)
	}
	tr.m.Close()
	tr.m = best
	return nil
}

// progress says each evaluation, with this session's training rate.
func (tr *training) progress() trainloop.Observer {
	var start time.Time
	var from int
	return trainloop.ObserverFunc(func(e trainloop.Event) {
		switch {
		case e.Kind == trainloop.Started:
			start, from = time.Now(), e.Step
		case e.Kind == trainloop.Stepped && e.Scores != nil:
			tr.cfg.say("%s: step %d/%d loss %.4f val %.3f (%.1f steps/s)", tr.algo, e.Step, e.Steps, e.Loss, e.Scores["score"],
				float64(e.Step-from)/time.Since(start).Seconds())
		}
	})
}

// metricLogger logs a loop's curves to a run, train/loss at every step and
// val/score at every evaluation, keeping the first error.
type metricLogger struct {
	run *tracking.Run
	err error
}

func metricsTo(run *tracking.Run) *metricLogger { return &metricLogger{run: run} }

// Observe logs e's values.
func (l *metricLogger) Observe(e trainloop.Event) {
	if l.run == nil || l.err != nil || e.Kind != trainloop.Stepped {
		return
	}
	l.err = l.run.LogMetric("train/loss", int64(e.Step), e.Loss)
	if l.err == nil && e.Scores != nil {
		l.err = l.run.LogMetric("val/"+e.Metric, int64(e.Step), e.Scores[e.Metric])
	}
}
