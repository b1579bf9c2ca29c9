package pickle

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode: any bytes decode to a value or an error, never a panic, a
// hang or an allocation beyond the input's size (seeded with CPython's
// pickles of testdata/).
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.pkl")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data, Options{Classes: []string{"testmod.State"}})
		if err == nil {
			if a, ok := v.(*Array); ok {
				if _, err := a.Float64s(); err != nil {
					t.Fatalf("a decoded array does not read: %v", err)
				}
			}
		}
	})
}
