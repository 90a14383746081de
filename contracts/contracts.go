package contracts

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Manifest is tools.json: the server's identity and the tools it serves, in
// tools/list order.
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
// inside [FS]; [Tool.Input] and [Tool.Output] read them.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	Annotations  json.RawMessage `json:"annotations"`
	InputSchema  string          `json:"inputSchema"`
	OutputSchema string          `json:"outputSchema"`
}

// Input returns the tool's input schema exactly as it is written in contracts/.
func (t Tool) Input() (json.RawMessage, error) { return readRaw(t.InputSchema) }

// Output returns the tool's output schema exactly as it is written in contracts/.
func (t Tool) Output() (json.RawMessage, error) { return readRaw(t.OutputSchema) }

// LoadManifest parses tools.json.
func LoadManifest() (*Manifest, error) { return LoadManifestIn("") }

// LoadManifestIn parses the tools.json of the endpoint whose contracts are
// in folder dir ("" for Trident's at the root, [RelayDir] for Relay's). The
// schema paths it returns are prefixed with dir, so [Tool.Input] and
// [Tool.Output] find them in [FS].
func LoadManifestIn(dir string) (*Manifest, error) {
	var m Manifest
	if err := readJSON(path.Join(dir, "tools.json"), &m); err != nil {
		return nil, err
	}
	if len(m.Tools) == 0 {
		return nil, fmt.Errorf("contracts: %s lists no tools", path.Join(dir, "tools.json"))
	}
	for i := range m.Tools {
		m.Tools[i].InputSchema = path.Join(dir, m.Tools[i].InputSchema)
		m.Tools[i].OutputSchema = path.Join(dir, m.Tools[i].OutputSchema)
	}
	return &m, nil
}

// RelayDir is the folder of the Relay rides endpoint's contracts (/mcp/rides).
const RelayDir = "relay"

// ErrorEntry is one row of the error catalogue (errors.json).
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

// LoadErrors parses errors.json.
func LoadErrors() ([]ErrorEntry, error) { return LoadErrorsIn("") }

// LoadErrorsIn parses the errors.json of the contract folder dir (see
// [LoadManifestIn]).
func LoadErrorsIn(dir string) ([]ErrorEntry, error) {
	var doc struct {
		Errors []ErrorEntry `json:"errors"`
	}
	if err := readJSON(path.Join(dir, "errors.json"), &doc); err != nil {
		return nil, err
	}
	return doc.Errors, nil
}

// Sample is one request/response pair from samples/.
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

// LoadSamples reads every sample file (index.json excluded), sorted by name.
func LoadSamples() ([]Sample, error) { return LoadSamplesIn("") }

// LoadSamplesIn reads the samples of the contract folder dir (see
// [LoadManifestIn]); names stay relative to its samples/.
func LoadSamplesIn(dir string) ([]Sample, error) {
	var out []Sample
	root := path.Join(dir, "samples")
	err := fs.WalkDir(FS, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") || p == root+"/index.json" {
			return err
		}
		var s Sample
		if err := readJSON(p, &s); err != nil {
			return err
		}
		s.Name = strings.TrimSuffix(strings.TrimPrefix(p, root+"/"), ".json")
		out = append(out, s)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// ReadFile returns one contract file by its path below contracts/.
func ReadFile(name string) ([]byte, error) { return FS.ReadFile(path.Clean(name)) }

func readRaw(name string) (json.RawMessage, error) {
	b, err := FS.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("contracts: %w", err)
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("contracts: %s is not valid JSON", name)
	}
	return b, nil
}

func readJSON(name string, v any) error {
	b, err := readRaw(name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("contracts: %s: %w", name, err)
	}
	return nil
}

// TariffFile is the path in [FS] of the fare tariff the server prices with.
const TariffFile = "tariff/argyll-2024-04.json"

// Tariff returns the default tariff file's bytes.
func Tariff() []byte {
	b, err := FS.ReadFile(TariffFile)
	if err != nil {
		panic("contracts: " + err.Error()) // embedded at build time; absence is a build defect
	}
	return b
}
