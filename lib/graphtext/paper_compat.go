package graphtext

import "github.com/narlab/narlab/lib/graphtext/paper"

// The paper's tables moved to package lib/graphtext/paper; these names
// share its data and are kept so that existing callers compile.
var (
	// Deprecated: use paper.Models.
	PaperModels = paper.Models
	// Deprecated: use paper.TaskOrder.
	PaperTaskOrder = paper.TaskOrder
	// Deprecated: use paper.SyntaxAccuracy.
	PaperSyntaxAccuracy = paper.SyntaxAccuracy
	// Deprecated: use paper.EncodingAccuracy.
	PaperEncodingAccuracy = paper.EncodingAccuracy
	// Deprecated: use paper.EncodingStd.
	PaperEncodingStd = paper.EncodingStd
)
