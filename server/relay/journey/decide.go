package journey

import (
	"errors"
	"fmt"
)

// Status is continue_journey's answer.
type Status string

// The statuses, in the order [Registry.Decide] checks for them (all but
// ready and proposal are about the connector, not the journey).
const (
	StatusInstallationUnknown Status = "installation_unknown"
	StatusConnectionRequired  Status = "connection_required"
	StatusDisabled            Status = "disabled"
	StatusUnauthorized        Status = "unauthorized"
	StatusUnavailable         Status = "unavailable"
	StatusProposal            Status = "proposal"
	StatusReady               Status = "ready"
)

// Reported is what the host said about one connector in this session (POST
// /v1/session/connectors), with "available" already defaulted to true when
// the host left it out.
type Reported struct {
	Installed, Enabled, Authorized, Available bool
}

// Decision is continue_journey's outcome for one target connector.
type Decision struct {
	Status    Status
	Connector string
	// Reason says in one sentence why, for the assistant to relay.
	Reason string
	// Step is what the assistant can offer next; nil only when Status is
	// ready.
	Step *Step
	// MissingFields names the shared journey fields the connector needs and
	// the journey lacks (proposal only), in registry order.
	MissingFields []string
	// NextAction is set only when Status is ready: only then may the host
	// invoke the target.
	NextAction *NextAction
}

// Action is a suggested step's kind. None installs anything: a connection
// step is offered to the user, who connects through the host.
type Action string

// The suggested steps.
const (
	ActionReportConnectors Action = "report_connectors"
	ActionConnect          Action = "connect"
	ActionEnable           Action = "enable"
	ActionAuthorize        Action = "authorize"
	ActionUseFallback      Action = "use_fallback"
	ActionProvideFields    Action = "provide_fields"
	ActionTryLater         Action = "try_later"
)

// Step is the step a decision suggests: Connector is the target, or the
// fallback (with its entry Tool) for use_fallback.
type Step struct {
	Action    Action
	Connector string
	Tool      string // use_fallback only
	Message   string
}

// NextAction is the call a host may make into the target connector.
type NextAction struct {
	Connector string         `json:"connector"`
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

// ErrUnknownConnector: to_connector names no connector of the registry.
// Relay answers it as invalid_arguments on to_connector.
var ErrUnknownConnector = errors.New("journey: unknown connector")

// Decide answers continue_journey for connector id given the session's
// latest connector report (nil: the host has not reported for the session
// yet; a report with no connectors is an empty, non-nil map) and the
// journey's (already merged and validated) fields, in the order the
// specification fixes:
//
//  1. no report for the session → installation_unknown (the host must
//     report current capabilities);
//  2. left out of the report, or installed false → connection_required
//     (the specification's "a missing connector returns
//     connection_required");
//  3. enabled false → disabled;
//  4. authorized false → unauthorized;
//  5. available false, or switched off in the registry → unavailable;
//  6. a field the registry marks required is unknown → proposal, with
//     missing_fields;
//  7. otherwise ready, with next_action's arguments mapped from the fields.
//
// Every status but ready carries a Step: report, connect, enable,
// authorize, ask for the fields, or a permitted fallback from the registry
// the host reports usable. Decide changes nothing: a proposal leaves the
// journey as it was, and no step installs anything. It refuses, before any
// status, a connector the registry does not know ([ErrUnknownConnector])
// and fields that fail [Fields.Validate] ([FieldErrors]), so nothing
// invalid reaches next_action.
func (r *Registry) Decide(id string, report map[string]Reported, f Fields) (Decision, error) {
	c, ok := r.Connector(id)
	if !ok {
		return Decision{}, fmt.Errorf("%w %q", ErrUnknownConnector, id)
	}
	if err := f.Validate(); err != nil {
		return Decision{}, err
	}
	d := Decision{Connector: id}
	step := func(a Action, msg string) *Step { return &Step{Action: a, Connector: id, Message: msg} }
	rep, reported := report[id]
	switch {
	case report == nil:
		d.Status, d.Reason = StatusInstallationUnknown, "The host has not reported this session's connectors yet."
		d.Step = step(ActionReportConnectors, "Report the session's installed and enabled connectors (POST /v1/session/connectors), then call continue_journey again.")
	case !reported || !rep.Installed:
		d.Status, d.Reason = StatusConnectionRequired, "The host's latest report for this session does not list the connector as installed."
		if !reported {
			d.Reason = "The host's latest report for this session leaves the connector out: it is not connected."
		}
		d.Step = step(ActionConnect, "Offer the user a connection step for this connector in the host; it is never installed automatically.")
	case !rep.Enabled:
		d.Status, d.Reason = StatusDisabled, "The connector is installed but disabled in this session."
		d.Step = step(ActionEnable, "Offer the user to enable the connector in the host.")
	case !rep.Authorized:
		d.Status, d.Reason = StatusUnauthorized, "The connector is installed but not authorized for this user."
		d.Step = step(ActionAuthorize, "Offer the user to authorize the connector in the host.")
	case !rep.Available || !c.Enabled:
		d.Status, d.Reason = StatusUnavailable, "The connector is not available now."
		if !c.Enabled {
			d.Reason = "The operator has switched the connector off."
		}
		d.Step = step(ActionTryLater, "No permitted fallback is usable in this session: continue without this connector, or try again later; do not poll.")
	}
	if d.Status != "" {
		if fb, ok := r.fallback(c, report); ok {
			msg := fmt.Sprintf("%s is a permitted fallback the host reports usable: with the user's agreement, continue there instead.", fb.Name)
			if d.Status == StatusUnavailable {
				d.Step = &Step{Action: ActionUseFallback, Connector: fb.ID, Tool: fb.EntryTool, Message: msg}
			} else {
				d.Step.Message += " Or: " + msg
			}
		}
		return d, nil
	}
	args := map[string]any{}
	for _, a := range c.Arguments {
		v, known := f.Value(a.From)
		switch {
		case known:
			args[a.Name] = v
		case a.Required:
			d.MissingFields = append(d.MissingFields, a.From)
		}
	}
	if len(d.MissingFields) > 0 {
		d.Status, d.Reason = StatusProposal, "The journey lacks details the connector needs; nothing has changed."
		d.Step = step(ActionProvideFields, "Ask the user for the missing_fields, without repeating known journey details, then call continue_journey again with them in journey_context.")
		return d, nil
	}
	d.Status, d.Reason = StatusReady, "Invoke next_action with its arguments."
	d.NextAction = &NextAction{Connector: id, Tool: c.EntryTool, Arguments: args}
	return d, nil
}

// fallback is c's first permitted fallback that is switched on in the
// registry and that report says is installed, enabled, authorized and
// available.
func (r *Registry) fallback(c Connector, report map[string]Reported) (Connector, bool) {
	for _, id := range c.Fallbacks {
		fb, ok := r.Connector(id)
		rep, reported := report[id]
		if ok && fb.Enabled && reported && rep.Installed && rep.Enabled && rep.Authorized && rep.Available {
			return fb, true
		}
	}
	return Connector{}, false
}
