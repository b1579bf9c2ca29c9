package llamacpp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/narlab/narlab/lib/llm/llamacpp"
)

// Start the local server (or reuse the one running) and print its
// OpenAI-compatible endpoint, as `narlab llm serve` does.
func ExampleEnsureServer() {
	srv, reused, err := llamacpp.EnsureServer(context.Background(), llamacpp.Config{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(srv.Endpoint(), reused)
}
