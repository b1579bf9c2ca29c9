package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/tracking/mlflow"
)

// narlab mlflow serve: a tracking server for a team (docs/sweep.md).

func init() {
	register(command{group: "mlflow", name: "serve", summary: "run a shared MLflow tracking server (PostgreSQL backend store) in the foreground", run: mlflowServe})
}

func mlflowServe(args []string) error {
	fs := newFlags("mlflow serve")
	backend := fs.String("backend-store", "", "backend store URI (required), e.g. postgresql://mlflow@db.lab:5432/mlflow; put the password in PGPASSWORD or ~/.pgpass, not here")
	artifacts := fs.String("artifacts", "", "artifact store root, a directory (required); the server proxies uploads into it")
	host := fs.String("host", "127.0.0.1", "address to listen on (0.0.0.0: every interface)")
	port := fs.Int("port", 5000, "port")
	workers := fs.Int("workers", 4, "server worker processes")
	dir := fs.String("dir", "", "the server's state and log directory (default: the data directory's mlflow-serve/PORT)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	switch {
	case *backend == "" || *artifacts == "":
		return missingFlag(fs, "--backend-store and --artifacts are required")
	case *port < 1 || *port > 65535:
		return fmt.Errorf("mlflow serve: port %d; want 1-65535", *port)
	case *workers < 1:
		return fmt.Errorf("mlflow serve: workers %d; want at least 1", *workers)
	case net.ParseIP(*host) == nil && *host != "localhost":
		return fmt.Errorf("mlflow serve: host %q: want an IP address to listen on, e.g. 127.0.0.1 or 0.0.0.0", *host)
	}
	u, err := backendStore(*backend)
	if err != nil {
		return err
	}
	arts, err := filepath.Abs(*artifacts)
	if err != nil {
		return err
	}
	if err := fsutil.CheckCreatableDir(arts); err != nil {
		return fmt.Errorf("mlflow serve: --artifacts: %w", err)
	}
	if *dir == "" {
		d, err := mlflow.DefaultServerDir()
		if err != nil {
			return err
		}
		*dir = filepath.Join(d+"-serve", fmt.Sprint(*port))
	}
	if err := fsutil.CheckCreatableDir(*dir); err != nil {
		return fmt.Errorf("mlflow serve: --dir: %w", err)
	}
	h := *host
	if h == "localhost" {
		h = "127.0.0.1"
	}
	// SIGINT/SIGTERM (a service manager's stop) end the serve loop below,
	// which stops the server: the process-wide handler must not exit first
	// and leave the server running on its own.
	ctx := commandContext()
	if s, err := mlflow.FindServer(ctx, *dir); err == nil && s != nil {
		return fmt.Errorf("mlflow serve: a server started from %s is already running (pid %d, %s)", *dir, s.PID, s.URL)
	}
	_, statErr := os.Stat(arts)
	if err := os.MkdirAll(arts, fsutil.DirMode); err != nil {
		return fmt.Errorf("mlflow serve: --artifacts: %w", err)
	}
	srv, err := mlflow.StartServer(ctx, mlflow.ServerConfig{Dir: *dir, Port: *port, Workers: *workers,
		BackendStore: u.String(), Artifacts: arts, Host: h, StartTimeout: 3 * time.Minute})
	if err != nil {
		if errors.Is(statErr, os.ErrNotExist) {
			os.Remove(arts) // the artifact root this command made, still empty: a failed start leaves none behind
		}
		return fmt.Errorf("mlflow serve: %w", err)
	}
	fmt.Fprintf(os.Stderr, "MLflow tracking server (pid %d) on %s:%d; backend store %s; artifacts in %s; log %s\n",
		srv.PID, h, *port, redactPassword(u), arts, srv.LogPath())
	fmt.Fprintf(os.Stderr, "clients: export %s=%s (with this machine's name for %s)\n", mlflow.EnvTrackingURI, srv.URL, h)
	fmt.Fprintln(stdout, srv.URL)
	return serveUntil(ctx, srv, *dir)
}

// backendStore reads --backend-store: a database URI (postgres spelt as
// SQLAlchemy wants it), with a warning when it holds a password.
func backendStore(backend string) (*url.URL, error) {
	u, err := url.Parse(backend)
	if err != nil {
		return nil, fmt.Errorf("mlflow serve: --backend-store: %w", err)
	}
	switch u.Scheme {
	case "postgresql", "postgresql+psycopg", "postgres", "mysql", "mysql+pymysql", "sqlite":
	default:
		return nil, fmt.Errorf("mlflow serve: --backend-store %q: want a database URI such as postgresql://USER@HOST:PORT/DB", redactPassword(u))
	}
	if u.Scheme == "postgres" {
		u.Scheme = "postgresql" // SQLAlchemy knows only this spelling
	}
	if _, has := u.User.Password(); has {
		fmt.Fprintln(os.Stderr, "narlab: warning: the backend store URI holds a password, which every user of this machine can read in the process list; use PGPASSWORD or ~/.pgpass")
	}
	return u, nil
}

// serveUntil serves until interrupted (then stops the server), or until
// the server dies on its own.
func serveUntil(ctx context.Context, srv *mlflow.Server, dir string) error {
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintln(os.Stderr, "stopping the MLflow server")
			return srv.Stop()
		case <-tick.C:
			if s, err := mlflow.FindServer(context.Background(), dir); err != nil || s == nil {
				srv.Stop()
				return fmt.Errorf("mlflow serve: the server stopped answering; see %s", srv.LogPath())
			}
		}
	}
}

func redactPassword(u *url.URL) string {
	if _, has := u.User.Password(); has {
		c := *u
		c.User = url.UserPassword(u.User.Username(), "xxxxx")
		return c.String()
	}
	return strings.TrimSpace(u.String())
}
