package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/narlab/narlab/internal/fsutil"
)

// keyVersion changes when the key's layout changes (old entries are then
// simply never found).
const keyVersion = 1

// keyFields is what identifies a request: everything that can change the
// answer, nothing that cannot (the API key, timeouts, retries).
type keyFields struct {
	V        int       `json:"v"`
	Endpoint string    `json:"endpoint"`
	API      API       `json:"api"`
	Model    string    `json:"model"`
	Params   Params    `json:"params"`
	Schema   *Schema   `json:"schema,omitempty"`
	Prompt   string    `json:"prompt,omitempty"`
	Messages []Message `json:"messages,omitempty"`
}

func newKeyFields(endpoint, model string, req *Request) keyFields {
	k := keyFields{V: keyVersion, Endpoint: endpoint, API: req.API, Model: model, Params: req.Params, Schema: req.Schema}
	if req.API == Chat {
		k.Messages = req.messages()
	} else {
		k.Prompt = req.Prompt
	}
	return k
}

// cacheKey is the hex SHA-256 of the request's key fields in JSON (struct
// fields in declaration order, map keys sorted: a canonical encoding).
func cacheKey(endpoint, model string, req *Request) string {
	b, err := json.Marshal(newKeyFields(endpoint, model, req))
	if err != nil {
		// Only a schema holding values JSON cannot encode gets here; such
		// a request could not be sent either.
		panic(fmt.Sprintf("llm: encoding a cache key: %v", err))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Entry is one cached answer with the request it answers.
type Entry struct {
	Key      string    `json:"key"`
	Request  keyFields `json:"request"`
	Response Response  `json:"response"`
	// Unsupported, on the entry of a [Client.ServesCompletions] probe,
	// is the endpoint's refusal of the completion API ("" when it
	// answered).
	Unsupported string `json:"unsupported,omitempty"`
	// Created is when the answer arrived.
	Created time.Time `json:"created"`
}

func newEntry(endpoint, model string, req *Request, r Response) Entry {
	r.Cached, r.Attempts = false, 0
	return Entry{Key: cacheKey(endpoint, model, req), Request: newKeyFields(endpoint, model, req), Response: r,
		Created: time.Now().UTC()}
}

// Cache is a directory of answered requests, one JSON file per request
// (DIR/ab/abcdef….json, named by the key). Files are written atomically,
// so several processes may share a cache and an interrupted run never
// leaves a partial entry.
type Cache struct {
	dir string
}

// OpenCache opens (creating it if needed) the cache in dir; it fails if
// files cannot be created there.
func OpenCache(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("llm: no cache directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("llm: cache: %w", err)
	}
	if err := fsutil.CheckWritableDir(abs); err != nil {
		return nil, fmt.Errorf("llm: cache: %w", err)
	}
	return &Cache{dir: abs}, nil
}

// Dir returns the cache's directory.
func (c *Cache) Dir() string { return c.dir }

func (c *Cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

// Get returns the entry stored under key. An unreadable entry (not JSON,
// or stored under another key) is reported as an error naming the file.
func (c *Cache) Get(key string) (Entry, bool, error) {
	if len(key) < 3 {
		return Entry{}, false, fmt.Errorf("llm: cache key %q is too short", key)
	}
	p := c.path(key)
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return Entry{}, false, nil
	}
	if err != nil {
		return Entry{}, false, fmt.Errorf("llm: cache: %w", err)
	}
	var e Entry
	if err := json.Unmarshal(b, &e); err != nil {
		return Entry{}, false, fmt.Errorf("llm: cache entry %s is not valid JSON (%v); delete it to ask again", p, err)
	}
	if e.Key != key {
		return Entry{}, false, fmt.Errorf("llm: cache entry %s holds key %q; delete it to ask again", p, e.Key)
	}
	return e, true, nil
}

// Put stores an entry under key.
func (c *Cache) Put(key string, e Entry) error {
	if len(key) < 3 {
		return fmt.Errorf("llm: cache key %q is too short", key)
	}
	e.Key = key
	b, err := json.MarshalIndent(e, "", " ")
	if err != nil {
		return fmt.Errorf("llm: cache: %w", err)
	}
	if err := fsutil.WriteFile(c.path(key), append(b, '\n'), fsutil.DataMode); err != nil {
		return fmt.Errorf("llm: cache: %w", err)
	}
	return nil
}

// Len counts the entries (a walk of the directory).
func (c *Cache) Len() (int, error) {
	n := 0
	err := filepath.WalkDir(c.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && filepath.Ext(p) == ".json" {
			n++
		}
		return nil
	})
	return n, err
}
