package nn

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/ml/model/checkpoint"
)

// SaveWith writes the sparse model's variables and optimizer state as a
// checkpoint in dir, with its configuration and extra files (a training
// loop's state beside the parameters it describes), in the dense model's
// layout and with its guarantees (see [Model.SaveWith]: written beside dir
// and moved into place). [LoadSparse] reads it back.
func (s *Sparse) SaveWith(dir string, files map[string][]byte) error {
	if s.store == nil {
		return errClosed
	}
	// The checkpoint is the store and the configuration; Model's writer
	// needs nothing else.
	return (&Model{cfg: s.cfg, store: s.store}).SaveWith(dir, files)
}

// LoadSparse restores a sparse model saved with [Sparse.SaveWith]: its
// parameters, its optimizer's state and its random-number state, so that
// training goes on exactly as if it had not stopped.
func LoadSparse(backend compute.Backend, dir string) (*Sparse, error) {
	data, err := os.ReadFile(filepath.Join(dir, configFile))
	if err != nil {
		return nil, fmt.Errorf("nn: sparse: %s is not a narlab checkpoint: %w", dir, err)
	}
	var cfg Config
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("nn: sparse: %s: %w", configFile, err)
	}
	s, err := NewSparse(backend, cfg)
	if err != nil {
		return nil, err
	}
	// The lazy loader, as Load's: it overwrites the variables NewSparse
	// made (the random-number state) and loads the others as the programs
	// create them.
	if _, err := checkpoint.Build(s.store).Dir(dir).Keep(2).Done(); err != nil {
		s.Close()
		return nil, fmt.Errorf("nn: sparse: loading checkpoint %s: %w", dir, err)
	}
	return s, nil
}
