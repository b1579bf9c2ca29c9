package llmeval_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/narlab/narlab/experiments/llmeval"
	"github.com/narlab/narlab/lib/dsr"
)

// Prepare builds and checks a suite's prompts without sending anything:
// no endpoint or client is needed yet.
func ExamplePrepare() {
	p, err := llmeval.Prepare(llmeval.Config{Suite: llmeval.DSR,
		DSR: llmeval.DSROptions{Structures: []string{"stack", "queue"}, Count: 2, Strategy: dsr.NoReasoning}})
	if err != nil {
		log.Fatal(err)
	}
	pending, _ := p.Pending() // no client yet: nothing is cached
	fmt.Println(p.Len(), "prompts,", pending, "to ask; the first begins:")
	fmt.Println(strings.SplitN(p.Prompts()[0], "\n", 2)[0])
	// Output:
	// 4 prompts, 4 to ask; the first begins:
	// A stack keeps its elements in last-in, first-out order: the element added most recently is the first one to leave.
}

// Open connects prepared prompts to a model: here narlab's local llama.cpp
// server, started only if the response cache (DATA/llm/cache) does not
// answer every prompt, as `narlab llm run` does.
func ExampleOpen() {
	ctx := context.Background()
	p, err := llmeval.Prepare(llmeval.Config{Suite: llmeval.CLRSText,
		CLRSText: llmeval.CLRSTextOptions{Algorithms: []string{"insertion_sort"}, Lengths: []int{4}}})
	if err != nil {
		log.Fatal(err)
	}
	conn, err := llmeval.Open(ctx, llmeval.Endpoint{URL: llmeval.Local, Logf: log.Printf}, p)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d of %d prompts to ask %s\n", conn.Pending, p.Len(), conn.Client.Model())
	res, err := p.Run(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("accuracy %.2f; run %s\n", res.Score, res.RunURL)
}

// Run asks, scores and logs one MLflow run (here a few CLRS-Text traces,
// asked of an OpenAI-compatible endpoint).
func ExampleRun() {
	res, err := llmeval.Run(context.Background(), llmeval.Config{Suite: llmeval.CLRSText,
		Endpoint: llmeval.Endpoint{URL: "http://127.0.0.1:18080/v1", Model: "gemma-3-270m"},
		CLRSText: llmeval.CLRSTextOptions{Algorithms: []string{"insertion_sort"}, Lengths: []int{4, 8}}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("accuracy %.2f over %d prompts; run %s\n", res.Score, res.Prompts, res.RunURL)
}
