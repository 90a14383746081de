package main

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/tridenttaxis/trident-mcp/contracts"
)

func genErrcodes(errs []contracts.ErrorEntry) []byte {
	var b bytes.Buffer
	b.WriteString(header("gen-contracts"))
	b.WriteString(`// Package errcodes is the error catalogue as Go values: the shared rows of
// contracts/errors.json and each endpoint's tool rows (contracts/<endpoint>/
// errors.json), one Code per row and the row itself, so that the server, the
// client and the conformance suite name failures the same way.
package errcodes

import "strings"

// Code is the catalogue name of a failure, e.g. "GEOCODE_FAILED".
type Code string

// Surface says where a failure shows: a JSON-RPC error object, a tool result
// with isError: true, or an HTTP status before any JSON-RPC handling.
type Surface string

const (
	SurfaceJSONRPC Surface = "jsonrpc"
	SurfaceTool    Surface = "tool"
	SurfaceHTTP    Surface = "http"
)

// Entry is one row of the catalogue.
type Entry struct {
	Code        Code
	Source      string // "seed", "protocol" or "project"
	Surface     Surface
	JSONRPCCode int // 0 when the failure has no JSON-RPC code
	HTTPStatus  int // 0 when the failure is not an HTTP status of its own
	Tools       []string
	Meaning     string
	Remedy      string
	Retryable   bool
	Signal      string            // tool errors: substring of the text that identifies the code
	Message     string            // template with {placeholders}
	Messages    map[string]string // tool errors: the text per tool
}

`)
	b.WriteString("// Catalogue codes.\nconst (\n")
	for _, e := range errs {
		comment(&b, "\t", e.Meaning)
		fmt.Fprintf(&b, "\t%s Code = %q\n", exported(strings.ToLower(e.Name)), e.Name)
	}
	b.WriteString(")\n\n")
	b.WriteString("// Catalogue lists every row: the shared ones in the order of contracts/errors.json,\n// then each endpoint's in the order of its errors.json.\nvar Catalogue = []Entry{\n")
	for _, e := range errs {
		fmt.Fprintf(&b, "\t{\n\t\tCode: %s,\n\t\tSource: %q,\n\t\tSurface: %q,\n\t\tJSONRPCCode: %d,\n\t\tHTTPStatus: %d,\n\t\tTools: %#v,\n\t\tMeaning: %q,\n\t\tRemedy: %q,\n\t\tRetryable: %v,\n\t\tSignal: %q,\n\t\tMessage: %q,\n",
			exported(strings.ToLower(e.Name)), e.Source, e.Surface, e.JSONRPCCode, e.HTTPStatus, nonNil(e.Tools), e.Meaning, e.Remedy, e.Retryable, e.Signal, e.Message)
		if len(e.Messages) > 0 {
			keys := make([]string, 0, len(e.Messages))
			for k := range e.Messages {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			b.WriteString("\t\tMessages: map[string]string{\n")
			for _, k := range keys {
				fmt.Fprintf(&b, "\t\t\t%q: %q,\n", k, e.Messages[k])
			}
			b.WriteString("\t\t},\n")
		}
		b.WriteString("\t},\n")
	}
	b.WriteString("}\n")
	b.WriteString(lookupFuncs)
	return b.Bytes()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// lookupFuncs is the fixed tail of errcodes.gen.go: lookups by code, JSON-RPC
// code, HTTP status and tool text, in catalogue order.
const lookupFuncs = `
// Lookup returns the catalogue row of code.
func Lookup(code Code) (Entry, bool) {
	for _, e := range Catalogue {
		if e.Code == code {
			return e, true
		}
	}
	return Entry{}, false
}

// MustLookup is Lookup for codes known at compile time; it panics on a code
// that is not in the catalogue, which is a programming error.
func MustLookup(code Code) Entry {
	e, ok := Lookup(code)
	if !ok {
		panic("errcodes: no catalogue row " + string(code))
	}
	return e
}

// ByJSONRPC returns the first row, in catalogue order, whose JSON-RPC code is
// code, preferring rows that surface as JSON-RPC errors over HTTP ones.
func ByJSONRPC(code int) (Entry, bool) {
	var fallback *Entry
	for i, e := range Catalogue {
		if e.JSONRPCCode != code {
			continue
		}
		if e.Surface == SurfaceJSONRPC {
			return e, true
		}
		if fallback == nil {
			fallback = &Catalogue[i]
		}
	}
	if fallback != nil {
		return *fallback, true
	}
	return Entry{}, false
}

// ByToolText returns the tool-error row whose signal the isError text contains.
func ByToolText(text string) (Entry, bool) {
	for _, e := range Catalogue {
		if e.Surface == SurfaceTool && e.Signal != "" && strings.Contains(text, e.Signal) {
			return e, true
		}
	}
	return Entry{}, false
}
`
