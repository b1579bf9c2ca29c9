package kernel

// Must returns v, or panics with err when it is not nil. In a notebook cell
// a panic stops the cell and shows the error, which is what a cell should do
// with an error it cannot handle:
//
//	fig := kernel.Must(plots.Bars(cats, groups, opts))
//
// Notebooks use this one instead of defining their own.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Must2 is Must for calls that return two values and an error.
func Must2[A, B any](a A, b B, err error) (A, B) {
	if err != nil {
		panic(err)
	}
	return a, b
}

// Check panics with err when it is not nil: Must for calls that return
// only an error, such as kernel.Check(kernel.Show(fig)).
func Check(err error) {
	if err != nil {
		panic(err)
	}
}
