package nn

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReferenceCheckpoint: any file given as a dm-clrs checkpoint is read
// and its configuration inferred, or refused with an error; never a panic
// (seeded with the reference's checkpoints of testdata/refckpt).
func FuzzReferenceCheckpoint(f *testing.F) {
	files, _ := filepath.Glob("testdata/refckpt/*.pkl")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ck, err := parseReference(data)
		if err != nil {
			return
		}
		ck.infer(ReferenceOptions{})
	})
}
