package nprand_test

import (
	"fmt"

	"github.com/narlab/narlab/lib/nprand"
)

// The same calls on numpy.random.RandomState(42) print the same numbers:
//
//	>>> rs = np.random.RandomState(42)
//	>>> rs.uniform(0, 1, 3); rs.randint(0, 10, 3); rs.permutation(5)
func Example() {
	rs := nprand.New(42)
	fmt.Println(rs.UniformN(0, 1, 3))
	fmt.Println(rs.RandIntN(0, 10, 3))
	fmt.Println(rs.Permutation(5))
	// Output:
	// [0.3745401188473625 0.9507143064099162 0.7319939418114051]
	// [4 6 9]
	// [1 0 3 4 2]
}
