package mlflow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/narlab/narlab/internal/fsutil"
)

// artifactStore is where a run's artifacts live: behind the server's
// artifact proxy (mlflow-artifacts: URIs) or in a local directory (file:
// URIs, usable only on the server's machine).
type artifactStore struct {
	c     *Client // the proxy's server
	root  string  // proxy path of the run's artifact root, e.g. "1/<run>/artifacts"
	local string  // local directory when the URI is file:
}

// artifactStoreFor resolves a run's artifact URI (RunInfo.ArtifactURI).
func (c *Client) artifactStoreFor(artifactURI string) (*artifactStore, error) {
	u, err := url.Parse(artifactURI)
	if err != nil {
		return nil, fmt.Errorf("mlflow: artifact URI %q: %w", artifactURI, err)
	}
	switch u.Scheme {
	case "mlflow-artifacts":
		s := &artifactStore{c: c, root: strings.Trim(u.Path, "/")}
		if u.Host != "" {
			// Another host's proxy: same scheme and credentials as ours.
			o := *c
			b := *c.base
			b.Host, b.Path = u.Host, ""
			o.base = &b
			s.c = &o
		}
		return s, nil
	case "http", "https":
		const marker = "/api/2.0/mlflow-artifacts/artifacts"
		i := strings.Index(u.Path, marker)
		if i < 0 {
			return nil, fmt.Errorf("mlflow: artifact URI %q: an http artifact location must contain %s", artifactURI, marker)
		}
		o := *c
		b := *u
		b.Path, b.RawQuery, b.User = u.Path[:i], "", nil
		o.base = &b
		return &artifactStore{c: &o, root: strings.Trim(u.Path[i+len(marker):], "/")}, nil
	case "file", "":
		p := u.Path
		if u.Scheme == "" {
			p = artifactURI
		}
		if st, err := os.Stat(filepath.Dir(filepath.Clean(p))); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("mlflow: artifact URI %q is a local path that this machine does not have: "+
				"start the server with --serve-artifacts (the default) so artifacts go through its proxy", artifactURI)
		}
		return &artifactStore{local: filepath.Clean(p)}, nil
	}
	return nil, fmt.Errorf("mlflow: artifact URI %q: scheme %q is not supported; expected mlflow-artifacts: (the server's artifact proxy) or file:", artifactURI, u.Scheme)
}

func (s *artifactStore) endpoint(p string) string {
	e := "mlflow-artifacts/artifacts"
	if full := strings.Trim(path.Join(s.root, p), "/"); full != "" {
		e += "/" + escapePath(full)
	}
	return e
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

func contentType(p string) string {
	if t := mime.TypeByExtension(path.Ext(p)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// put stores data, or the file that open returns when open is non-nil, as
// artifactPath.
func (s *artifactStore) put(ctx context.Context, artifactPath string, data []byte, open func() (*os.File, error)) error {
	if err := ValidateArtifactPath(artifactPath); err != nil {
		return err
	}
	if s.local != "" {
		dst := filepath.Join(s.local, filepath.FromSlash(artifactPath))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("mlflow: artifact %s: %w", artifactPath, err)
		}
		if open != nil {
			in, err := open()
			if err != nil {
				return fmt.Errorf("mlflow: artifact %s: %w", artifactPath, err)
			}
			defer in.Close()
			return fsutil.Write(dst, fsutil.DataMode, func(w io.Writer) error {
				_, err := io.Copy(w, in)
				return err
			})
		}
		return fsutil.WriteFile(dst, data, fsutil.DataMode)
	}
	r := request{method: http.MethodPut, endpoint: s.endpoint(artifactPath), body: data, open: open,
		ctype: contentType(artifactPath), retryAmbiguous: true}
	if open == nil && data == nil {
		r.body = []byte{}
	}
	if err := s.c.call(ctx, r, nil); err != nil {
		return fmt.Errorf("mlflow: uploading artifact %s: %w", artifactPath, err)
	}
	return nil
}

// UploadArtifact stores data as the artifact artifactPath (e.g.
// "plots/loss.png") of the run whose artifact root is artifactURI
// (RunInfo.ArtifactURI). An existing artifact at that path is replaced.
func (c *Client) UploadArtifact(ctx context.Context, artifactURI, artifactPath string, data []byte) error {
	s, err := c.artifactStoreFor(artifactURI)
	if err != nil {
		return err
	}
	if data == nil {
		data = []byte{}
	}
	return s.put(ctx, artifactPath, data, nil)
}

// UploadArtifactFile uploads the local file localPath as artifactPath,
// streaming it (checkpoints may be large).
func (c *Client) UploadArtifactFile(ctx context.Context, artifactURI, artifactPath, localPath string) error {
	st, err := os.Stat(localPath)
	if err != nil {
		return fmt.Errorf("mlflow: artifact %s: %w", artifactPath, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("mlflow: artifact %s: %s is not a regular file", artifactPath, localPath)
	}
	s, err := c.artifactStoreFor(artifactURI)
	if err != nil {
		return err
	}
	return s.put(ctx, artifactPath, nil, func() (*os.File, error) { return os.Open(localPath) })
}

// ListArtifacts lists the directory dir ("" for the root) of a run's
// artifacts. Paths in the result are relative to the run's artifact root
// (e.g. "plots/loss.png"), as in the MLflow UI.
func (c *Client) ListArtifacts(ctx context.Context, artifactURI, dir string) ([]FileInfo, error) {
	if dir != "" {
		if err := ValidateArtifactPath(dir); err != nil {
			return nil, err
		}
	}
	s, err := c.artifactStoreFor(artifactURI)
	if err != nil {
		return nil, err
	}
	if s.local != "" {
		ents, err := os.ReadDir(filepath.Join(s.local, filepath.FromSlash(dir)))
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("mlflow: listing artifacts %q: %w", dir, err)
		}
		var out []FileInfo
		for _, e := range ents {
			fi := FileInfo{Path: path.Join(dir, e.Name()), IsDir: e.IsDir()}
			if info, err := e.Info(); err == nil && !e.IsDir() {
				fi.FileSize = Int64(info.Size())
			}
			out = append(out, fi)
		}
		return out, nil
	}
	q := url.Values{}
	if p := strings.Trim(path.Join(s.root, dir), "/"); p != "" {
		q.Set("path", p)
	}
	var out struct {
		Files []FileInfo `json:"files"`
	}
	if err := s.c.get(ctx, "mlflow-artifacts/artifacts", q, &out); err != nil {
		return nil, fmt.Errorf("mlflow: listing artifacts %q: %w", dir, err)
	}
	for i := range out.Files {
		out.Files[i].Path = path.Join(dir, out.Files[i].Path)
	}
	sort.Slice(out.Files, func(i, j int) bool { return out.Files[i].Path < out.Files[j].Path })
	return out.Files, nil
}

// ListArtifactsRecursive lists every file under dir ("" for all).
func (c *Client) ListArtifactsRecursive(ctx context.Context, artifactURI, dir string) ([]FileInfo, error) {
	ents, err := c.ListArtifacts(ctx, artifactURI, dir)
	if err != nil {
		return nil, err
	}
	var out []FileInfo
	for _, e := range ents {
		if !e.IsDir {
			out = append(out, e)
			continue
		}
		sub, err := c.ListArtifactsRecursive(ctx, artifactURI, e.Path)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	return out, nil
}

// DownloadArtifact writes the artifact artifactPath to w.
func (c *Client) DownloadArtifact(ctx context.Context, artifactURI, artifactPath string, w io.Writer) error {
	if err := ValidateArtifactPath(artifactPath); err != nil {
		return err
	}
	s, err := c.artifactStoreFor(artifactURI)
	if err != nil {
		return err
	}
	if s.local != "" {
		f, err := os.Open(filepath.Join(s.local, filepath.FromSlash(artifactPath)))
		if err != nil {
			return fmt.Errorf("mlflow: downloading artifact %s: %w", artifactPath, err)
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	}
	resp, err := s.c.send(ctx, request{method: http.MethodGet, endpoint: s.endpoint(artifactPath), retryAmbiguous: true}, s.c.retry)
	if err != nil {
		return fmt.Errorf("mlflow: downloading artifact %s: %w", artifactPath, err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(w, resp.Body); err != nil {
		return fmt.Errorf("mlflow: downloading artifact %s: %w", artifactPath, err)
	}
	return nil
}

// ReadArtifact returns the content of the artifact artifactPath.
func (c *Client) ReadArtifact(ctx context.Context, artifactURI, artifactPath string) ([]byte, error) {
	var b bytes.Buffer
	if err := c.DownloadArtifact(ctx, artifactURI, artifactPath, &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// DownloadArtifactToFile downloads artifactPath into the local file dst,
// written atomically (a temporary file renamed into place).
func (c *Client) DownloadArtifactToFile(ctx context.Context, artifactURI, artifactPath, dst string) error {
	return fsutil.Write(dst, fsutil.DataMode, func(w io.Writer) error {
		return c.DownloadArtifact(ctx, artifactURI, artifactPath, w)
	})
}

// copyFile copies src to dst atomically (mode DataMode less the umask).
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return fsutil.Write(dst, fsutil.DataMode, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}
