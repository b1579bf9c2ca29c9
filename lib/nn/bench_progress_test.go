package nn

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/narlab/narlab/internal/fsutil"
)

// progressEvery is how often BenchmarkProtocol writes its progress file
// (and after the last batch): often enough to lose little of a long row,
// seldom enough not to weigh on a short one.
const progressEvery = 30 * time.Second

// protocolProgress is the test split's progress across runs of one
// BenchmarkProtocol row, in the file NARLAB_BENCH_PROGRESS names (the same
// format as scripts/ref_protocol.py's): some rows' test splits (quickselect:
// 2,048 samples of up to 479 steps) take longer than a working session, so
// after each batch the batches done, their summed time and the peak memory
// so far are written (whole, then renamed; every progressEvery), and a later run on the same
// machine (NARLAB_BENCH_MACHINE, compared as a string) skips those batches
// and adds their time to its own.
type protocolProgress struct {
	Row       string  `json:"row"`
	Machine   string  `json:"machine"`
	Batches   int     `json:"batches"`
	TestS     float64 `json:"test_s"`
	PeakRSSMB float64 `json:"peak_rss_mb"`
	Processes int     `json:"processes"`

	path string
}

// loadProtocolProgress reads path ("" for none) for row on machine. A file
// written for another row or machine is reported on stderr and ignored (the
// test split starts over); an unreadable one is an error.
func loadProtocolProgress(path, row, machine string) (*protocolProgress, error) {
	p := &protocolProgress{Row: row, Machine: machine, Processes: 1, path: path}
	if path == "" {
		return p, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, err
	}
	var old protocolProgress
	if err := json.Unmarshal(data, &old); err != nil {
		return nil, fmt.Errorf("%s: unreadable progress (%v); remove it to start the row over", path, err)
	}
	if old.Row != row || old.Machine != machine {
		fmt.Fprintf(os.Stderr, "%s was written for %q on %q, not %q on %q: starting the test split over\n",
			path, old.Row, old.Machine, row, machine)
		return p, nil
	}
	old.Processes++
	old.path = path
	fmt.Fprintf(os.Stderr, "resuming the test split after %d batches (%.1f s in %d earlier runs)\n",
		old.Batches, old.TestS, old.Processes-1)
	return &old, nil
}

// save records batches done in testS seconds in all (the earlier runs'
// included), the peak resident memory so far being rssMB.
func (p *protocolProgress) save(batches int, testS, rssMB float64) error {
	if p.path == "" {
		return nil
	}
	p.PeakRSSMB = max(p.PeakRSSMB, rssMB) // the peak over all runs so far
	rec := *p
	rec.Batches, rec.TestS = batches, testS
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return fsutil.WriteFile(p.path, data, fsutil.DataMode)
}

// runs is how many runs the test split of total batches took, this one
// counted only if it evaluated some.
func (p *protocolProgress) runs(total int) int {
	if p.Batches >= total {
		return p.Processes - 1
	}
	return p.Processes
}
