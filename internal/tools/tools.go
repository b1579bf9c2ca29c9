//go:build tools

// Package tools pins the versions of the command-line tools narlab builds
// from source (the GoNB kernel and goimports, which GoNB runs on every
// cell) and of the libraries the notebooks import, so that `go build`
// resolves them from go.sum without asking the module proxy for @latest.
package tools

import (
	_ "github.com/gomlx/gomlx/backends/default"
	_ "github.com/gomlx/gomlx/ml/layers"
	_ "github.com/google/uuid"
	_ "github.com/janpfeifer/gonb"
	_ "github.com/janpfeifer/gonb/gonbui"
	_ "golang.org/x/tools/cmd/goimports"
	_ "gonum.org/v1/gonum/mat"
	_ "gonum.org/v1/plot"
)
