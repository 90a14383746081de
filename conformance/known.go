package conformance

import (
	_ "embed"
	"fmt"
	"os"
	"strings"
)

//go:embed known_failures.txt
var embeddedKnownFailures string

// KnownFailure is one line of a known-failures file.
type KnownFailure struct {
	Match  string // text that appears in the spec's full name
	Reason string
}

// LoadKnownFailures reads the known-failures file at path: "" means the
// embedded known_failures.txt, "none" means no known failures.
func LoadKnownFailures(path string) ([]KnownFailure, error) {
	text := embeddedKnownFailures
	switch path {
	case "":
	case "none":
		return nil, nil
	default:
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("known failures: %w", err)
		}
		text = string(b)
	}
	return ParseKnownFailures(text)
}

// ParseKnownFailures parses "<match>  # <reason>" lines; blank lines and lines
// starting with '#' are comments. A line without a reason is an error: a
// known failure must say why it is tolerated.
func ParseKnownFailures(text string) ([]KnownFailure, error) {
	var out []KnownFailure
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		match, reason, ok := strings.Cut(line, " # ")
		match, reason = strings.TrimSpace(match), strings.TrimSpace(reason)
		if !ok || match == "" || reason == "" {
			return nil, fmt.Errorf("known failures line %d %q: want '<spec name text>  # <reason>'", i+1, line)
		}
		out = append(out, KnownFailure{Match: match, Reason: reason})
	}
	return out, nil
}

// Lookup returns the known failure whose text appears in fullName.
func Lookup(known []KnownFailure, fullName string) (KnownFailure, bool) {
	for _, k := range known {
		if strings.Contains(fullName, k.Match) {
			return k, true
		}
	}
	return KnownFailure{}, false
}
