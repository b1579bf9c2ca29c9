// Command narlab is the narlab workbench's command-line tool: CLRS data
// generation, experiment tracking, training and the notebook kernel.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "narlab:", err)
		os.Exit(1)
	}
}
