// Package sweep runs grids of CLRS trainings (algorithms × processors ×
// seeds × any other `narlab train` flag) as one sweep, on a SLURM cluster
// as a job array or on this machine K processes at a time, and collects
// their results from MLflow.
//
// A sweep lives in a directory (on a file system the compute nodes share):
//
//	sweep.json    the sweep: its id, the grid, every cell's train flags,
//	              the executor's settings, the tracking server, the parent run
//	job.sbatch    the last job-array script submitted (slurm executor)
//	jobs.jsonl    one line per submission: job id, time, the cells submitted
//	cells/KEY/    each cell's run directory (checkpoints; an interrupted
//	              training resumes from it)
//	logs/         each task's standard output and error
//
// Every cell is one `narlab train` whose MLflow run is a child of the
// sweep's parent run and carries the tags [TagSweep] and [TagCell]. A cell
// runs through [RunCell], which makes each cell end FINISHED exactly once in
// MLflow however often it is submitted:
//
//   - it holds an exclusive lock on the cell (cells/KEY.lock) while it runs,
//     so two attempts of a cell never train at the same time;
//   - it skips the cell when MLflow already has a FINISHED run for it;
//   - otherwise the earlier, unfinished attempts (a killed or preempted task
//     leaves its run RUNNING, FAILED or KILLED) are ended KILLED and tagged
//     [TagSupersededBy]; the training resumes from the cell's last
//     checkpoint in a new run (tagged resumed_at_step by narlab train), and
//     once that run is FINISHED the superseded ones are deleted (MLflow's
//     soft delete: `mlflow gc` purges them, restore brings them back).
//
// So the active runs of a finished sweep are one FINISHED run per cell. A
// resumed run holds the whole validation curve (narlab train logs the
// points of the checkpoint it resumes from again), so nothing is lost when
// the interrupted attempt is deleted.
//
// Submitting a sweep again (the same directory) submits only the cells that
// have no FINISHED run and no task still queued or running in SLURM.
package sweep
