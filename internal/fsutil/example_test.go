package fsutil_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/narlab/narlab/internal/fsutil"
)

func Example() {
	dir, _ := os.MkdirTemp("", "fsutil")
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "rows.jsonl")
	fsutil.WriteFile(p, []byte("{\"n\":1}\n{\"n\":2}\n"), fsutil.DataMode)
	f, _ := os.Open(p)
	defer f.Close()
	fsutil.ReadJSONL(f, func(line int, v struct{ N int }) error {
		fmt.Println(line, v.N)
		return nil
	})
	err := fsutil.ReadJSONL(strings.NewReader("{"), func(int, struct{}) error { return nil })
	fmt.Println(err != nil)
	// Output:
	// 1 1
	// 2 2
	// true
}
