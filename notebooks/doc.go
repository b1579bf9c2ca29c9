// Package notebooks holds narlab's Jupyter notebooks (the .ipynb files in
// this directory, built from src/ by build.py) and the test that executes
// every one of them with the real "Go (narlab)" kernel.
package notebooks
