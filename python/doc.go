// Package python holds the Go side of narlab's Python package (the
// directory's narlab/ and pyproject.toml): a test that keeps
// narlab/specs.json equal to the Go specs, the tests that run the
// package's pytest suites in their environments — the project's .venv
// (NumPy loading, parity with dm-clrs's samplers) and the bridge
// environment of scripts/setup-pybridge.sh (dm-clrs's BaselineModel,
// PyTorch Geometric, the snippets of docs/python.md) — on files written by
// `narlab clrs generate`, and TestWheel: the wheel `make wheel` builds,
// installed into new virtual environments with no Go on PATH, running the
// docs' examples against a real MLflow server.
package python
