package clrs30

import (
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn"
)

// EvaluateReference scores a dm-clrs checkpoint (the pickle dm-clrs's
// BaselineModel.save_model writes) on a CLRS-30 split, as Evaluate scores
// a narlab checkpoint: nn.LoadReference reads it (opts names what its
// parameters cannot say) and the split is scored in batches of 32. It
// returns the scores and the configuration the checkpoint was read with.
func EvaluateReference(path, split, backend string, limit int, opts nn.ReferenceOptions) (map[string]float64, nn.Config, error) {
	be, err := nn.Backend(backend)
	if err != nil {
		return nil, nn.Config{}, err
	}
	m, err := nn.LoadReference(be, path, opts)
	if err != nil {
		return nil, nn.Config{}, err
	}
	defer m.Close()
	sc, err := m.EvaluateTrajectories(clrs.SplitTrajectories(m.Config().Algorithm, split, limit), 32)
	return sc, m.Config(), err
}

// ExportReference writes a narlab checkpoint (a directory nn.Save wrote,
// such as the one `narlab train` prints) as a dm-clrs checkpoint at out,
// with its Adam state (nn.Model.ExportReference). It returns the model's
// configuration, which a dm-clrs BaselineModel must be built with to
// restore it.
func ExportReference(checkpoint, out, backend string) (nn.Config, error) {
	be, err := nn.Backend(backend)
	if err != nil {
		return nn.Config{}, err
	}
	m, err := nn.Load(be, checkpoint)
	if err != nil {
		return nn.Config{}, err
	}
	defer m.Close()
	return m.Config(), m.ExportReference(out)
}
