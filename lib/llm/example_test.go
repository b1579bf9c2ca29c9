package llm_test

import (
	"context"
	"fmt"
	"log"

	"github.com/narlab/narlab/lib/llm"
)

// A client of a local llama.cpp server (`narlab llm serve`), with a
// response cache: running this twice sends the request once.
func ExampleClient_Do() {
	cache, err := llm.OpenCache("data/llm/cache")
	if err != nil {
		log.Fatal(err)
	}
	c, err := llm.New(llm.Config{BaseURL: "http://127.0.0.1:18080/v1", Model: "gemma-3-270m", Concurrency: 2, Cache: cache})
	if err != nil {
		log.Fatal(err)
	}
	r, err := c.Do(context.Background(), llm.Request{API: llm.Chat, Prompt: "Name a prime number.",
		Params: llm.Params{Temperature: 0, MaxTokens: 16}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q (%d tokens, cached %v)\n", r.Text, r.Usage.CompletionTokens, r.Cached)
}

// Structured output: the answer must follow a JSON schema.
func ExampleSchema() {
	req := llm.Request{API: llm.Chat, Prompt: "Is 7 prime? Reply in JSON.", Params: llm.Params{MaxTokens: 32},
		Schema: &llm.Schema{Name: "verdict", Strict: true, Schema: map[string]any{
			"type": "object", "additionalProperties": false,
			"properties": map[string]any{"prime": map[string]any{"type": "boolean"}},
			"required":   []any{"prime"},
		}}}
	c, _ := llm.New(llm.Config{BaseURL: "https://api.openai.com/v1", Model: "gpt-4o-mini"})
	key, err := c.Key(req)
	fmt.Println(len(key), err)
	// Output: 64 <nil>
}

// Bad configurations and requests are errors before anything is sent.
func ExampleNew() {
	_, err := llm.New(llm.Config{BaseURL: "localhost:8080", Model: "m"})
	fmt.Println(err)
	err = llm.Params{MaxTokens: 0}.Validate()
	fmt.Println(err)
	// Output:
	// llm: endpoint "localhost:8080": want an http(s) URL such as http://127.0.0.1:18080/v1
	// llm: max tokens 0: want a positive number
}
