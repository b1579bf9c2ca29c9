package tracking

import (
	"io"
	"os"
)

// announceWriter is where the one line naming the local MLflow server
// ("narlab: started the local MLflow server; UI at …") goes: standard
// error on the command line, nowhere inside a notebook cell (GoNB sets
// GONB_PIPE for the programs it runs), where it would show as a stderr box
// in every cell that logs; notebooks link their runs with kernel.RunLink.
func announceWriter() io.Writer {
	if os.Getenv("GONB_PIPE") != "" {
		return io.Discard
	}
	return os.Stderr
}
