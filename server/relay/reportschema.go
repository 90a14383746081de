package relay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"go.yaml.in/yaml/v3"

	"github.com/tridenttaxis/trident-mcp/contracts"
	"github.com/tridenttaxis/trident-mcp/gen/relay/api"
	"github.com/tridenttaxis/trident-mcp/server/draft2020"
)

// reportSchemaName is the request body of POST /v1/session/connectors in
// contracts/openapi.yaml.
const reportSchemaName = "SessionConnectorsReport"

// maxReportBytes bounds a connector report's body: 64 connectors and a
// context fit in a few KiB.
const maxReportBytes = 64 << 10

// compileReportSchema compiles the report's schema straight from the
// OpenAPI contract (OpenAPI 3.1 schemas are Draft 2020-12), so that the
// body is held to the contract: the strict server oapi-codegen generates
// only decodes, and would take a body with unknown members or without a
// required one (an omitted boolean read as false).
func compileReportSchema() (*jsonschema.Schema, error) {
	raw, err := contracts.FS.ReadFile("openapi.yaml")
	if err != nil {
		return nil, err
	}
	var doc struct {
		Components struct {
			Schemas map[string]any `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("relay: contracts/openapi.yaml: %w", err)
	}
	if doc.Components.Schemas[reportSchemaName] == nil {
		return nil, fmt.Errorf("relay: contracts/openapi.yaml has no components.schemas.%s", reportSchemaName)
	}
	b, err := json.Marshal(map[string]any{
		"$schema":    "https://json-schema.org/draft/2020-12/schema",
		"$ref":       "#/components/schemas/" + reportSchemaName,
		"components": map[string]any{"schemas": doc.Components.Schemas},
	})
	if err != nil {
		return nil, fmt.Errorf("relay: the OpenAPI schemas as JSON: %w", err)
	}
	s, err := draft2020.Compile("openapi-connectors-report.json", b)
	if err != nil {
		return nil, fmt.Errorf("relay: contracts/openapi.yaml components.schemas.%s: %w", reportSchemaName, err)
	}
	return s, nil
}

// checkReport answers 400 invalid_request for a body that is not a
// connector report by the contract, before the strict handler decodes it;
// a valid body is passed on unchanged.
func checkReport(schema *jsonschema.Schema, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxReportBytes))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				writeJSON(w, http.StatusRequestEntityTooLarge, api.RelayErrorResponse{Error: "invalid_request", Message: fmt.Sprintf("a connector report is at most %d bytes", maxReportBytes)})
				return
			}
			writeJSON(w, http.StatusBadRequest, api.RelayErrorResponse{Error: "invalid_request", Message: "the body could not be read"})
			return
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		var doc any
		if err := dec.Decode(&doc); err != nil || dec.More() {
			writeJSON(w, http.StatusBadRequest, api.RelayErrorResponse{Error: "invalid_request", Message: "the body is not one JSON value"})
			return
		}
		if err := schema.Validate(doc); err != nil {
			msg := err.Error()
			var ve *jsonschema.ValidationError
			if errors.As(err, &ve) {
				leaf := ve
				for len(leaf.Causes) > 0 {
					leaf = leaf.Causes[0]
				}
				msg = fmt.Sprintf("%s: %s", leaf.InstanceLocation, leaf.Message)
			}
			writeJSON(w, http.StatusBadRequest, api.RelayErrorResponse{Error: "invalid_request", Message: "the body is not a connector report: " + msg})
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}
