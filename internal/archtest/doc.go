// Package archtest enforces the package table of docs/ARCHITECTURE.md: its
// test reads the table, parses the imports of every Go file in the module
// (test files included, build tags ignored) and fails when a package
// imports what its row does not allow, when a package has no row, or when a
// row matches no package. TestCmdFunctionLength fails naming every function
// of cmd/ longer than 80 lines (a command parses flags, calls a library and
// prints). TestREADME keeps the README a front door (its
// size, the two commands on its first screen, links that stay inside the
// repository and resolve). It has no code of its own; run it with
// `go test ./internal/archtest`.
package archtest
