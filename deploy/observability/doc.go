// Package observability holds what an operator watches trident-mcp with: a
// Grafana dashboard (dashboard.json) over the series the server exports per
// endpoint, and Prometheus alerting rules (alerts.yaml). Its tests hold them
// to the server: every rule parses with Prometheus's own rule parser, every
// expression of both parses with its PromQL parser, and every series they
// name is on a running server's /metrics once it has served a search; and
// one Relay search over real HTTP is one OpenTelemetry trace, from the
// caller through Relay into Trident's price step, in an OTLP receiver of
// the test's own.
package observability

import _ "embed"

// Dashboard is the Grafana dashboard (import it, or provision it from the
// file); Alerts are the Prometheus rules (rule_files).
var (
	//go:embed dashboard.json
	Dashboard []byte
	//go:embed alerts.yaml
	Alerts []byte
)
