package clrs30

import "github.com/narlab/narlab/lib/nn"

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
