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
	// MissingFields names the shared journey fields the connector needs and
	// the journey lacks (proposal only), in registry order.
	MissingFields []string
	// NextAction is set only when Status is ready: only then may the host
	// invoke the target.
	NextAction *NextAction
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
// latest connector report and the journey's (already merged and validated)
// fields, in the order the specification fixes:
//
//  1. not in the report → installation_unknown (the host must report);
//  2. installed false → connection_required;
//  3. enabled false → disabled;
//  4. authorized false → unauthorized;
//  5. available false, or switched off in the registry → unavailable;
//  6. a field the registry marks required is unknown → proposal, with
//     missing_fields;
//  7. otherwise ready, with next_action's arguments mapped from the fields.
//
// Decide changes nothing: a proposal leaves the journey as it was, and no
// status installs anything. It refuses, before any status, a connector the
// registry does not know ([ErrUnknownConnector]) and fields that fail
// [Fields.Validate] ([FieldErrors]), so nothing invalid reaches next_action.
func (r *Registry) Decide(id string, report map[string]Reported, f Fields) (Decision, error) {
	c, ok := r.Connector(id)
	if !ok {
		return Decision{}, fmt.Errorf("%w %q", ErrUnknownConnector, id)
	}
	if err := f.Validate(); err != nil {
		return Decision{}, err
	}
	d := Decision{Connector: id}
	rep, reported := report[id]
	switch {
	case !reported:
		d.Status, d.Reason = StatusInstallationUnknown, "The host has not reported this connector for the session: report current connectors, then try again."
	case !rep.Installed:
		d.Status, d.Reason = StatusConnectionRequired, "The connector is not installed: offer the user a connection step; it is never installed automatically."
	case !rep.Enabled:
		d.Status, d.Reason = StatusDisabled, "The connector is installed but disabled in this session."
	case !rep.Authorized:
		d.Status, d.Reason = StatusUnauthorized, "The connector is installed but not authorized for this user."
	case !rep.Available || !c.Enabled:
		d.Status, d.Reason = StatusUnavailable, "The connector is not available now."
	}
	if d.Status != "" {
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
		d.Status, d.Reason = StatusProposal, "The journey lacks details the connector needs: ask for the missing fields; nothing has changed."
		return d, nil
	}
	d.Status, d.Reason = StatusReady, "Invoke next_action with its arguments."
	d.NextAction = &NextAction{Connector: id, Tool: c.EntryTool, Arguments: args}
	return d, nil
}
