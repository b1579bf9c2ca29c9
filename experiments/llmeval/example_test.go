package llmeval_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/narlab/narlab/experiments/llmeval"
	"github.com/narlab/narlab/lib/dsr"
	"github.com/narlab/narlab/lib/llm"
)

// Prepare builds and checks a suite's prompts without sending anything.
func ExamplePrepare() {
	c, err := llm.New(llm.Config{BaseURL: "http://127.0.0.1:18080/v1", Model: "gemma-3-270m"})
	if err != nil {
		log.Fatal(err)
	}
	p, err := llmeval.Prepare(llmeval.Config{Suite: llmeval.DSR, Client: c,
		DSR: llmeval.DSROptions{Structures: []string{"stack", "queue"}, Count: 2, Strategy: dsr.NoReasoning}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Len(), "prompts; the first begins:")
	fmt.Println(strings.SplitN(p.Prompts()[0], "\n", 2)[0])
	// Output:
	// 4 prompts; the first begins:
	// A stack keeps its elements in last-in, first-out order: the element added most recently is the first one to leave.
}

// Run asks, scores and logs one MLflow run (here a few CLRS-Text traces).
func ExampleRun() {
	cache, _ := llm.OpenCache("data/llm/cache")
	c, _ := llm.New(llm.Config{BaseURL: "http://127.0.0.1:18080/v1", Model: "gemma-3-270m", Cache: cache})
	res, err := llmeval.Run(context.Background(), llmeval.Config{Suite: llmeval.CLRSText, Client: c,
		CLRSText: llmeval.CLRSTextOptions{Algorithms: []string{"insertion_sort"}, Lengths: []int{4, 8}}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("accuracy %.2f over %d prompts; run %s\n", res.Score, res.Prompts, res.RunURL)
}
