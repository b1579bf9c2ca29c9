package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// Table is a table a run logged (tracking.Run.LogTable: a JSON artifact
// {"columns": […], "data": [[…], …]}, which the MLflow UI shows as a table).
type Table struct {
	Columns []string
	// Rows holds one map per row, column → value: a float64, string or bool,
	// or nil where the run logged none (a NaN score, say).
	Rows []map[string]any
}

// Table reads the table the run logged as the artifact path, e.g.
// r.Table(ctx, "serialization_scores.json").
func (r Run) Table(ctx context.Context, path string) (*Table, error) {
	if r.client == nil {
		return nil, fmt.Errorf("lab: run %s was not read from a tracking server", shortID(r.ID))
	}
	data, err := r.client.ReadArtifact(ctx, r.ArtifactURI, path)
	if err != nil {
		return nil, fmt.Errorf("lab: table %s of run %s: %w", path, shortID(r.ID), err)
	}
	t, err := parseTable(data)
	if err != nil {
		return nil, fmt.Errorf("lab: table %s of run %s: %w", path, shortID(r.ID), err)
	}
	return t, nil
}

func parseTable(data []byte) (*Table, error) {
	var raw struct {
		Columns []string `json:"columns"`
		Data    [][]any  `json:"data"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("not a table (expected {\"columns\": […], \"data\": […]}): %w", err)
	}
	if raw.Columns == nil {
		return nil, fmt.Errorf("not a table: no \"columns\"")
	}
	t := &Table{Columns: raw.Columns}
	for i, row := range raw.Data {
		if len(row) != len(raw.Columns) {
			return nil, fmt.Errorf("row %d has %d values for %d columns", i, len(row), len(raw.Columns))
		}
		m := make(map[string]any, len(row))
		for k, v := range row {
			m[raw.Columns[k]] = v
		}
		t.Rows = append(t.Rows, m)
	}
	return t, nil
}
