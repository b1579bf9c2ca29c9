package clrs_test

import (
	"fmt"
	"log"

	"github.com/narlab/narlab/lib/clrs"
)

// Run BFS on a graph written as JSON (the input of `narlab clrs run`),
// with its arguments named as ArgNames names them.
func ExampleDecodeArgs() {
	names, err := clrs.ArgNames("bfs")
	if err != nil {
		log.Fatal(err)
	}
	args, err := clrs.DecodeArgs([]byte(`{"A": [[0, 1, 0], [1, 0, 1], [0, 1, 0]], "s": 0}`), names, 256)
	if err != nil {
		log.Fatal(err)
	}
	t, err := clrs.Run("bfs", args)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("arguments:", names)
	fmt.Println("pi:", t.Output("pi").Data)

	_, err = clrs.DecodeArgs([]byte(`{"A": [[0, 1], [1, 0]]}`), names, 256)
	fmt.Println("error:", err)
	// Output:
	// arguments: [A s]
	// pi: [0 0 1]
	// error: missing argument "s"
}

// Sample BFS graphs with the edge probability given as JSON (the
// `--kwargs` of `narlab clrs sample`), next to the sampler's defaults.
func ExampleParseParams() {
	class, defaults, err := clrs.SamplerParams("bfs")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("defaults:", class, clrs.FormatSamplerParams(defaults))

	params, err := clrs.ParseParams(`{"p": [0.2, 0.8]}`)
	if err != nil {
		log.Fatal(err)
	}
	opts := []clrs.Option{clrs.Length(8), clrs.Seed(1), clrs.NumSamples(2)}
	for _, p := range params {
		fmt.Printf("%s = %v (%T)\n", p.Name, p.Value, p.Value)
		opts = append(opts, clrs.Kwarg(p.Name, p.Value))
	}
	s, err := clrs.NewSampler("bfs", opts...)
	if err != nil {
		log.Fatal(err)
	}
	fb, err := s.Dataset()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("samples:", fb.BatchSize())

	_, err = clrs.ParseParams(`{"p": [0.5]`)
	fmt.Println("error:", err)
	// Output:
	// defaults: BfsSampler (p=[0.5])
	// p = [0.2 0.8] ([]float64)
	// samples: 2
	// error: "{\"p\": [0.5]": unterminated JSON object; expected one such as '{"p": [0.5]}'
}
