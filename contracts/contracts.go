package contracts

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Set is one endpoint's contract folder: tools.json, schemas/, samples/,
// errors.json (its tool rows) and whatever data its tools read.
type Set struct {
	dir  string
	fsys fs.FS
}

// NewSet returns the contract folder dir of contracts/ whose files are
// fsys (paths relative to the folder: "tools.json", "schemas/..."). Each
// endpoint's folder is its own Go package that embeds its files and calls
// this ([github.com/tridenttaxis/trident-mcp/contracts/trident.Set]), so
// that a package reading one endpoint's contracts carries no other's.
func NewSet(dir string, fsys fs.FS) *Set { return &Set{dir: dir, fsys: fsys} }

// Dir is the folder's path below contracts/ ("trident").
func (s *Set) Dir() string { return s.dir }

// FS is the folder's files, with paths relative to it ("schemas/...").
func (s *Set) FS() fs.FS { return s.fsys }

// ReadFile returns one file of the folder by its path below it.
func (s *Set) ReadFile(name string) ([]byte, error) { return fs.ReadFile(s.fsys, path.Clean(name)) }

// Manifest is an endpoint's tools.json: its identity and the tools it
// serves, in tools/list order.
type Manifest struct {
	Server ServerInfo `json:"server"`
	Tools  []Tool     `json:"tools"`
}

// ServerInfo names the server in the initialize result.
type ServerInfo struct {
	Name            string `json:"name"`
	Version         string `json:"version"`
	ProtocolVersion string `json:"protocolVersion"`
}

// Tool is one entry of tools.json. InputSchema and OutputSchema are paths
// inside its folder; [Tool.Input] and [Tool.Output] read them.
type Tool struct {
	set *Set

	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	Annotations  json.RawMessage `json:"annotations"`
	InputSchema  string          `json:"inputSchema"`
	OutputSchema string          `json:"outputSchema"`
}

// Input returns the tool's input schema exactly as it is written in contracts/.
func (t Tool) Input() (json.RawMessage, error) { return readRaw(t.set.fsys, t.set.dir, t.InputSchema) }

// Output returns the tool's output schema exactly as it is written in contracts/.
func (t Tool) Output() (json.RawMessage, error) {
	return readRaw(t.set.fsys, t.set.dir, t.OutputSchema)
}

// Manifest parses the folder's tools.json.
func (s *Set) Manifest() (*Manifest, error) {
	var m Manifest
	if err := readJSON(s.fsys, s.dir, "tools.json", &m); err != nil {
		return nil, err
	}
	if len(m.Tools) == 0 {
		return nil, fmt.Errorf("contracts: %s/tools.json lists no tools", s.dir)
	}
	for i := range m.Tools {
		m.Tools[i].set = s
	}
	return &m, nil
}

// ErrorEntry is one row of the error catalogue (errors.json, or an
// endpoint's errors.json).
type ErrorEntry struct {
	Name        string            `json:"name"`
	Source      string            `json:"source"`  // seed, protocol or project
	Surface     string            `json:"surface"` // jsonrpc, tool or http
	JSONRPCCode int               `json:"jsonrpcCode,omitempty"`
	HTTPStatus  int               `json:"httpStatus,omitempty"`
	Tools       []string          `json:"tools"`
	Meaning     string            `json:"meaning"`
	Remedy      string            `json:"remedy"`
	Retryable   bool              `json:"retryable"`
	Signal      string            `json:"signal,omitempty"`   // tool errors: a substring of the text that identifies the code
	Message     string            `json:"message,omitempty"`  // template with {placeholders}
	Messages    map[string]string `json:"messages,omitempty"` // tool errors: the text per tool
}

// LoadErrors parses errors.json: the protocol and HTTP rows every endpoint
// shares.
func LoadErrors() ([]ErrorEntry, error) { return loadErrors(FS, ".", "errors.json") }

// Errors is the endpoint's error catalogue: the shared rows of errors.json,
// then the folder's own tool rows (its errors.json).
func (s *Set) Errors() ([]ErrorEntry, error) {
	shared, err := LoadErrors()
	if err != nil {
		return nil, err
	}
	own, err := loadErrors(s.fsys, s.dir, "errors.json")
	if err != nil {
		return nil, err
	}
	return append(shared, own...), nil
}

// Catalogue is the whole error catalogue of the endpoints sets: the shared
// rows, then each folder's own, with every code named once.
func Catalogue(sets ...*Set) ([]ErrorEntry, error) {
	all, err := LoadErrors()
	if err != nil {
		return nil, err
	}
	for _, s := range sets {
		own, err := loadErrors(s.fsys, s.dir, "errors.json")
		if err != nil {
			return nil, err
		}
		all = append(all, own...)
	}
	seen := map[string]bool{}
	for _, e := range all {
		if seen[e.Name] {
			return nil, fmt.Errorf("contracts: error code %s is defined twice", e.Name)
		}
		seen[e.Name] = true
	}
	return all, nil
}

func loadErrors(fsys fs.FS, dir, name string) ([]ErrorEntry, error) {
	var doc struct {
		Errors []ErrorEntry `json:"errors"`
	}
	if err := readJSON(fsys, dir, name, &doc); err != nil {
		return nil, err
	}
	return doc.Errors, nil
}

// Sample is one request/response pair from an endpoint's samples/.
type Sample struct {
	// Name is the file's path below samples/ without ".json",
	// e.g. "estimate_fare.success" or "errors/invalid_arguments".
	Name        string          `json:"-"`
	Description string          `json:"description"`
	ErrorCode   string          `json:"errorCode,omitempty"`
	Mode        string          `json:"mode,omitempty"` // "" (any mode) or "oauth"
	HTTP        SampleHTTP      `json:"http"`
	Request     json.RawMessage `json:"request"`
	Response    json.RawMessage `json:"response"`
}

// SampleHTTP is what the sample says of the HTTP exchange around the JSON-RPC bodies.
type SampleHTTP struct {
	Status         int               `json:"status"`
	Headers        map[string]string `json:"headers,omitempty"`
	RequestHeaders map[string]string `json:"requestHeaders,omitempty"`
}

// Samples reads every sample file of the folder (index.json excluded),
// sorted by name.
func (set *Set) Samples() ([]Sample, error) {
	var out []Sample
	err := fs.WalkDir(set.fsys, "samples", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") || p == "samples/index.json" {
			return err
		}
		var s Sample
		if err := readJSON(set.fsys, set.dir, p, &s); err != nil {
			return err
		}
		s.Name = strings.TrimSuffix(strings.TrimPrefix(p, "samples/"), ".json")
		out = append(out, s)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// ReadFile returns one of the shared contract files ("errors.json",
// "openapi.yaml") by its path below contracts/; an endpoint's files are
// read through its [Set].
func ReadFile(name string) ([]byte, error) { return FS.ReadFile(path.Clean(name)) }

// readRaw reads name of fsys (the folder dir of contracts/, named in errors).
func readRaw(fsys fs.FS, dir, name string) (json.RawMessage, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("contracts: %s: %w", dir, err)
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("contracts: %s is not valid JSON", path.Join(dir, name))
	}
	return b, nil
}

func readJSON(fsys fs.FS, dir, name string, v any) error {
	b, err := readRaw(fsys, dir, name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("contracts: %s: %w", path.Join(dir, name), err)
	}
	return nil
}
