package jaxrand_test

import (
	"fmt"

	"github.com/narlab/narlab/lib/jaxrand"
)

// The same calls in JAX 0.4.38 print the same keys and numbers:
//
//	>>> k = jax.random.PRNGKey(0)
//	>>> jax.random.split(k, 3); jax.random.uniform(k, (3,))
//	>>> jax.random.bernoulli(k, 0.5, (3,))
func Example() {
	k := jaxrand.PRNGKey(0)
	fmt.Println(jaxrand.Split(k, 3))
	fmt.Println(jaxrand.Uniform(k, 0, 1, 3))
	fmt.Println(jaxrand.Bernoulli(k, 0.5, 3))
	// Output:
	// [[2467461003 428148500] [3186719485 3840466878] [2562233961 1946702221]]
	// [0.9653214 0.31468165 0.63302994]
	// [false true false]
}

// A transformed haiku function applied with a key hands out these keys from
// hk.next_rng_key(), whether the calls are in a loop (hk.scan) or not.
func ExampleSequence() {
	s := jaxrand.NewSequence(jaxrand.PRNGKey(7))
	fmt.Println(s.Next(), s.Next())
	// Output:
	// [1948237315 1058547403] [2076423625 3773764719]
}
