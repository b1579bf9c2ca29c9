package mlflow_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/narlab/narlab/tracking/mlflow"
)

// Keys are checked before anything is buffered or sent: the error says what
// is wrong and what is expected.
func ExampleValidateKey() {
	for _, key := range []string{"train/loss", "ood/acc@64", "val//score"} {
		if err := mlflow.ValidateKey("metric", key); err != nil {
			msg, _, _ := strings.Cut(err.Error(), ";") // the rules follow the ';'
			fmt.Println(msg)
			continue
		}
		fmt.Println(key, "ok")
	}
	// Output:
	// train/loss ok
	// mlflow: metric key "ood/acc@64": character '@' is not allowed
	// mlflow: metric key "val//score": it is not a normalized path (the server treats keys as file names)
}

// Non-finite metric values travel as the strings MLflow's REST API accepts.
func ExampleMetric() {
	b, _ := json.Marshal(mlflow.Metric{Key: "train/loss", Value: math.NaN(), Timestamp: 1700000000000, Step: 3})
	fmt.Println(string(b))
	// Output:
	// {"key":"train/loss","value":"NaN","timestamp":1700000000000,"step":3}
}

// A batch larger than the server's limits is split into log-batch requests
// that respect them (1000 metrics, 100 params, 100 tags, 1 MB).
func ExampleBatch_Chunks() {
	var b mlflow.Batch
	for i := range 2500 {
		b.Metrics = append(b.Metrics, mlflow.Metric{Key: "train/loss", Value: 1 / float64(i+1), Step: int64(i), Timestamp: 1700000000000})
	}
	for _, c := range b.Chunks() {
		fmt.Println(len(c.Metrics), "metrics")
	}
	// Output:
	// 1000 metrics
	// 1000 metrics
	// 500 metrics
}

// A run logged through the spooled, background logger against the server
// named by MLFLOW_TRACKING_URI.
func ExampleClient_StartRun() {
	ctx := context.Background()
	c, err := mlflow.NewClientFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	run, err := c.StartRun(ctx, mlflow.RunOptions{Experiment: "clrs/bfs", RunName: "mpnn-seed1",
		SpoolDir: "data/mlflow/spool/example"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	run.LogParams(map[string]string{"processor": "mpnn", "seed": "1"})
	for step := int64(0); step < 1000; step++ {
		run.LogMetric("train/loss", step, 1/float64(step+1)) // returns at once
	}
	if err := run.End(ctx, mlflow.StatusFinished); err != nil {
		fmt.Fprintln(os.Stderr, "still in the spool, for `narlab mlflow sync`:", err)
	}
	fmt.Println(run.URL())
}
