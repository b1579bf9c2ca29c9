//go:build !cgo || noxla

package nn

// noPluginDownloads is backend_xla.go's; a binary without XLA downloads
// nothing.
func noPluginDownloads() {}
