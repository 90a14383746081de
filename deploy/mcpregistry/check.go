package mcpregistry

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// rulesSchema is the published schema's constraints on the fields an entry
// uses, transcribed with its source named in its $comment.
//
//go:embed rules.schema.json
var rulesSchema []byte

const rulesURL = "https://github.com/tridenttaxis/trident-mcp/deploy/mcpregistry/rules.schema.json"

var compiled = func() *jsonschema.Schema {
	c := jsonschema.NewCompiler()
	if err := c.AddResource(rulesURL, bytes.NewReader(rulesSchema)); err != nil {
		panic(err)
	}
	return c.MustCompile(rulesURL)
}()

// Server is the part of a server.json entry that this project publishes and
// that the checks below read.
type Server struct {
	Name        string      `json:"name"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Version     string      `json:"version"`
	WebsiteURL  string      `json:"websiteUrl"`
	Repository  *Repository `json:"repository"`
	Remotes     []Transport `json:"remotes"`
	Packages    []Package   `json:"packages"`
}

// Repository is where the server's source is.
type Repository struct {
	URL       string `json:"url"`
	Source    string `json:"source"`
	Subfolder string `json:"subfolder"`
}

// Transport is a remote endpoint, or how a package is reached once running.
type Transport struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// Package is an installable form of the server; for registryType "oci",
// Identifier is the image reference registry/namespace/repository:tag.
type Package struct {
	RegistryType string    `json:"registryType"`
	Identifier   string    `json:"identifier"`
	Version      string    `json:"version"`
	Transport    Transport `json:"transport"`
}

// ImageLabel is the label (and manifest annotation) by which the registry
// checks that an OCI image belongs to the entry: its value is the entry's
// name.
const ImageLabel = "io.modelcontextprotocol.server.name"

// Parse decodes an entry without judging it: [Check] does that.
func Parse(doc []byte) (*Server, error) {
	var s Server
	if err := json.Unmarshal(doc, &s); err != nil {
		return nil, fmt.Errorf("server.json: %w", err)
	}
	return &s, nil
}

// Check applies the published schema's rules and the semantic checks the
// official registry makes when an entry is published (modelcontextprotocol/
// registry, internal/validators and docs/reference/server-json/
// official-registry-requirements.md), short of those that ask the network
// (namespace ownership, the image's label in its registry). It returns every
// problem found, joined.
func Check(doc []byte) error {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return fmt.Errorf("server.json: %w", err)
	}
	var errs []error
	if err := compiled.Validate(v); err != nil {
		errs = append(errs, fmt.Errorf("server.json against the registry schema's rules: %w", err))
	}
	s, err := Parse(doc)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	errs = append(errs, s.semantic()...)
	return errors.Join(errs...)
}

var (
	// The registry's own name check is stricter than the schema's pattern:
	// each side starts and ends with a letter or digit.
	serverName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9.-]*[a-zA-Z0-9]/[a-zA-Z0-9][a-zA-Z0-9._-]*[a-zA-Z0-9]$`)
	githubRepo = regexp.MustCompile(`^https?://(www\.)?github\.com/[\w.-]+/[\w.-]+/?$`)
	// A version range (^1, ~1, >=1, 1.x, 1.*, 1 - 2, 1 || 2) is refused:
	// an entry names one version.
	versionRange = regexp.MustCompile(`^\s*(\^|~|>=|<=|>|<|=)|\|\||\s-\s|(^|\.)[xX*](\.|$|-)`)
	sha256Digest = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)
	// OCI images are accepted from these registries only.
	ociRegistries = []string{"docker.io", "ghcr.io", "quay.io", "mcr.microsoft.com"}
	ociSuffixes   = []string{".pkg.dev", ".azurecr.io"}
)

func (s *Server) semantic() []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if !serverName.MatchString(s.Name) {
		bad("name %q: want namespace/name, each starting and ending with a letter or digit", s.Name)
	}
	checkVersion := func(field, v string) {
		switch {
		case v == "latest":
			bad("%s: %q is reserved; name one version", field, v)
		case versionRange.MatchString(v):
			bad("%s: %q looks like a version range; name one version", field, v)
		}
	}
	checkVersion("version", s.Version)
	if strings.TrimSpace(s.Title) == "" && s.Title != "" {
		bad("title is only whitespace")
	}
	if s.WebsiteURL != "" && !isHTTPS(s.WebsiteURL) {
		bad("websiteUrl %q: want an absolute https URL", s.WebsiteURL)
	}
	if r := s.Repository; r != nil && (r.URL != "" || r.Source != "") {
		if r.Source != "github" || !githubRepo.MatchString(r.URL) {
			// gitlab is accepted too; this project is on GitHub.
			bad("repository: want source github and https://github.com/owner/repo, got %q %q", r.Source, r.URL)
		}
	}
	for i, r := range s.Remotes {
		if !isHTTPS(r.URL) || strings.ContainsAny(r.URL, "{}") {
			bad("remotes[%d].url %q: want an https URL without template variables", i, r.URL)
		} else if h := hostname(r.URL); h == "localhost" || h == "127.0.0.1" || strings.HasSuffix(h, ".localhost") {
			bad("remotes[%d].url %q: a remote must be reachable by its users, not on localhost", i, r.URL)
		}
	}
	for i, p := range s.Packages {
		if strings.Contains(p.Identifier, " ") {
			bad("packages[%d].identifier %q has spaces", i, p.Identifier)
		}
		checkVersion(fmt.Sprintf("packages[%d].version", i), p.Version)
		switch p.Transport.Type {
		case "stdio":
			if p.Transport.URL != "" {
				bad("packages[%d].transport: stdio takes no url", i)
			}
		case "streamable-http", "sse":
			if u, err := url.Parse(p.Transport.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				bad("packages[%d].transport.url %q: want an http(s) URL", i, p.Transport.URL)
			}
		}
		if p.RegistryType == "oci" {
			if err := checkOCIReference(p.Identifier); err != nil {
				bad("packages[%d].identifier: %v", i, err)
			}
		}
	}
	return errs
}

// checkOCIReference wants registry/namespace/repository with a tag or a
// digest, on a registry the official one accepts.
func checkOCIReference(ref string) error {
	host, rest, ok := strings.Cut(ref, "/")
	if !ok || !strings.Contains(host, ".") {
		return fmt.Errorf("%q: want registry/namespace/repository:tag (the registry named)", ref)
	}
	allowed := false
	for _, r := range ociRegistries {
		allowed = allowed || host == r
	}
	for _, s := range ociSuffixes {
		allowed = allowed || strings.HasSuffix(host, s)
	}
	if !allowed {
		return fmt.Errorf("%q: registry %s is not one the MCP Registry accepts (%s, *%s)", ref, host,
			strings.Join(ociRegistries, ", "), strings.Join(ociSuffixes, ", *"))
	}
	if _, digest, ok := strings.Cut(rest, "@"); ok {
		if !sha256Digest.MatchString(digest) {
			return fmt.Errorf("%q: digest %q is not sha256:<64 hex digits>", ref, digest)
		}
		return nil
	}
	last := rest[strings.LastIndex(rest, "/")+1:]
	if _, tag, ok := strings.Cut(last, ":"); !ok || tag == "" || tag == "latest" {
		return fmt.Errorf("%q: name the image's version in its tag (not latest) or digest", ref)
	}
	return nil
}

func isHTTPS(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Scheme == "https" && u.Host != ""
}

func hostname(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// OCIImage returns the entry's OCI package's image reference, or "" when it
// has none.
func (s *Server) OCIImage() string {
	for _, p := range s.Packages {
		if p.RegistryType == "oci" {
			return p.Identifier
		}
	}
	return ""
}
