package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"go.yaml.in/yaml/v3"

	"github.com/tridenttaxis/trident-mcp/contracts"
	"github.com/tridenttaxis/trident-mcp/gen/relay/api"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/draft2020"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
)

// ConnectorsPath is where the host reports a session's connectors.
const ConnectorsPath = "/v1/session/connectors"

// connectorReports serves POST /v1/session/connectors as
// contracts/openapi.yaml describes it, through oapi-codegen's strict server
// (gen/relay/api): the host's word on which connectors a session has, kept
// in the store (the latest report wins) for continue_journey.
type connectorReports struct{ s *endpoint }

var _ api.StrictServerInterface = connectorReports{}

// mountConnectors registers the route on mux behind the endpoint's own
// authentication, so that the report is made as the same actor the tools
// see.
func (s *endpoint) mountConnectors(m mcphttp.Mount, mux *http.ServeMux) error {
	schema, err := compileReportSchema()
	if err != nil {
		return err
	}
	si := api.NewStrictHandlerWithOptions(connectorReports{s}, nil, api.StrictHTTPServerOptions{
		RequestErrorHandlerFunc: func(w http.ResponseWriter, _ *http.Request, err error) {
			writeJSON(w, http.StatusBadRequest, api.RelayErrorResponse{Error: "invalid_request", Message: "the body is not a connector report: " + err.Error()})
		},
		ResponseErrorHandlerFunc: func(w http.ResponseWriter, r *http.Request, err error) {
			s.log.ErrorContext(r.Context(), "relay: connector report failed", "error", err.Error())
			http.Error(w, "internal error", http.StatusInternalServerError)
		},
	})
	// Middlewares run last-listed first: the access check, then the body
	// held to the contract, then the strict handler.
	api.HandlerWithOptions(si, api.StdHTTPServerOptions{BaseRouter: mux, Middlewares: []api.MiddlewareFunc{
		func(h http.Handler) http.Handler { return checkReport(schema, h) },
		func(h http.Handler) http.Handler { return m.Protect(ScopeJourneysWrite, h) },
	}})
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// maxReported caps a report, as the contract does.
const maxReported = 64

// ReportSessionConnectors checks the context as a tool call would (the
// signature for this caller, then the journey in the store) and replaces the
// session's report. An omitted "available" is true.
func (c connectorReports) ReportSessionConnectors(ctx context.Context, req api.ReportSessionConnectorsRequestObject) (api.ReportSessionConnectorsResponseObject, error) {
	s := c.s
	if req.Body == nil {
		return api.ReportSessionConnectors400JSONResponse{Error: "invalid_request", Message: "a JSON body is required"}, nil
	}
	if len(req.Body.Connectors) > maxReported {
		return api.ReportSessionConnectors400JSONResponse{Error: "invalid_request", Message: fmt.Sprintf("at most %d connectors", maxReported)}, nil
	}
	rep := store.ConnectorReport{Connectors: make([]store.ConnectorState, 0, len(req.Body.Connectors))}
	seen := map[string]bool{}
	for i, r := range req.Body.Connectors {
		if r.Id == "" || len(r.Id) > 64 || seen[r.Id] {
			return api.ReportSessionConnectors400JSONResponse{Error: "invalid_request", Message: fmt.Sprintf("connectors[%d]: want a connector id of 1 to 64 characters, listed once", i)}, nil
		}
		seen[r.Id] = true
		available := r.Available == nil || *r.Available
		rep.Connectors = append(rep.Connectors, store.ConnectorState{ID: r.Id, Installed: r.Installed, Enabled: r.Enabled, Authorized: r.Authorized, Available: available})
	}
	rc := req.Body.Context
	given := mcptypes.RelayContext{SessionID: rc.SessionId, JourneyID: rc.JourneyId, IntentID: rc.IntentId, RequestID: rc.RequestId,
		Verification: mcptypes.Verification{Kid: rc.Verification.Kid, Alg: mcptypes.VerificationAlg(rc.Verification.Alg), Signature: rc.Verification.Signature}}
	act := actor(ctx, nil)
	forbidden := api.ReportSessionConnectors403JSONResponse{Error: "invalid_context", Message: "the context is not one Relay issued to this caller for a journey it keeps: pass the relay_context of a Relay response unchanged"}
	if err := s.keys.VerifyContext(act, given); err != nil {
		s.obs.refused(invalidContext(errSignature))
		return forbidden, nil
	}
	j, err := s.store.Journey(ctx, act, given.JourneyID)
	switch {
	case errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrForeignActor):
		s.obs.refused(invalidContext(err))
		return forbidden, nil
	case err != nil:
		return nil, err
	case j.SessionID != given.SessionID:
		s.obs.refused(invalidContext(errSessionMismatch))
		return forbidden, nil
	}
	rep.SessionID = given.SessionID
	if err := s.store.ReportConnectors(ctx, act, rep); err != nil {
		return nil, fmt.Errorf("relay: storing the connector report: %w", err)
	}
	out := api.ReportSessionConnectors200JSONResponse{SessionId: rep.SessionID, Connectors: make([]api.ReportedConnector, len(rep.Connectors))}
	for i, r := range rep.Connectors {
		available := r.Available
		out.Connectors[i] = api.ReportedConnector{Id: r.ID, Installed: r.Installed, Enabled: r.Enabled, Authorized: r.Authorized, Available: &available}
	}
	return out, nil
}

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
