package mlflow

// MLflow's system tags (the mlflow. prefix is reserved for these meanings).
const (
	TagRunName         = "mlflow.runName"           // the run's name
	TagParentRunID     = "mlflow.parentRunId"       // makes a nested run (a sweep's child)
	TagUser            = "mlflow.user"              // who ran it
	TagSourceName      = "mlflow.source.name"       // program or notebook path
	TagSourceType      = "mlflow.source.type"       // NOTEBOOK, JOB, PROJECT, LOCAL or UNKNOWN
	TagGitCommit       = "mlflow.source.git.commit" // the commit of the code
	TagGitBranch       = "mlflow.source.git.branch"
	TagGitRepoURL      = "mlflow.source.git.repoURL"
	TagNote            = "mlflow.note.content"    // Markdown description shown on the run page
	TagLoggedArtifacts = "mlflow.loggedArtifacts" // JSON list of {"path","type"}; type "table" renders as a table
)

// Source types for TagSourceType.
const (
	SourceLocal    = "LOCAL"
	SourceNotebook = "NOTEBOOK"
	SourceJob      = "JOB"
)
