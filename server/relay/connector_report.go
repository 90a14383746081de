package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/tridenttaxis/trident-mcp/gen/relay/api"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
)

// ConnectorsPath is where the host reports a session's connectors.
const ConnectorsPath = "/v1/session/connectors"

// connectorReports serves POST /v1/session/connectors as
// contracts/openapi.yaml describes it, through oapi-codegen's strict server
// (gen/relay/api): the host's word on which connectors a session has, kept
// in the store (the latest report wins) for continue_journey.
type connectorReports struct{ s *Server }

var _ api.StrictServerInterface = connectorReports{}

// mountConnectors registers the route on mux behind the endpoint's own
// authentication, so that the report is made as the same actor the tools
// see.
func (s *Server) mountConnectors(m mcphttp.Mount, mux *http.ServeMux) error {
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
		return forbidden, nil
	}
	j, err := s.store.Journey(ctx, act, given.JourneyID)
	switch {
	case errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrForeignActor):
		return forbidden, nil
	case err != nil:
		return nil, err
	case j.SessionID != given.SessionID:
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
