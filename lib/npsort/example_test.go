package npsort_test

import (
	"fmt"

	"github.com/narlab/narlab/lib/npsort"
)

// Equal keys come out in numpy's order, not in index order: the four 1s
// at indices 3, 7, 11 and 15 come out as 3, 15, 7, 11, as numpy 1.26's
// np.argsort gives them on x86-64 without AVX-512.
func ExampleArgsort() {
	v := []int{5, 3, 5, 1, 5, 3, 5, 1, 5, 3, 5, 1, 5, 3, 5, 1, 5, 3, 5}
	fmt.Println(npsort.Argsort(v))
	// Output:
	// [3 15 7 11 9 1 5 13 17 16 14 12 0 8 6 4 2 10 18]
}
