package observability_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
)

var promql = parser.NewParser(parser.Options{})

// expression is one PromQL expression of the rules or the dashboard, named
// by where it is.
type expression struct{ where, expr string }

// ruleExpressions parses alerts.yaml with Prometheus's rule parser (the
// one Prometheus loads rule_files with: strict fields, each expression
// parsed, templates checked) and returns its expressions.
func ruleExpressions(t *testing.T) []expression {
	t.Helper()
	groups, errs := rulefmt.ParseFile("alerts.yaml", false, model.UTF8Validation, promql, slog.New(slog.DiscardHandler))
	for _, err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	var out []expression
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				t.Errorf("group %s: a rule that is not an alert (%s)", g.Name, r.Record)
				continue
			}
			if r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
				t.Errorf("alert %s: want a severity label and a summary annotation", r.Alert)
			}
			out = append(out, expression{"alert " + r.Alert, r.Expr})
		}
	}
	return out
}

// dashboardExpressions reads every panel's queries and the template
// variables' from dashboard.json, with Grafana's variables replaced by what
// Grafana would put there ($__rate_interval by a range, $endpoint by a
// regular expression), so each parses as the PromQL Prometheus receives.
func dashboardExpressions(t *testing.T) []expression {
	t.Helper()
	b, err := os.ReadFile("dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	type target struct {
		Expr  string `json:"expr"`
		RefID string `json:"refId"`
	}
	type panel struct {
		ID      int      `json:"id"`
		Title   string   `json:"title"`
		Type    string   `json:"type"`
		Targets []target `json:"targets"`
		Panels  []panel  `json:"panels"`
	}
	var d struct {
		UID        string  `json:"uid"`
		Panels     []panel `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if d.UID == "" {
		t.Error("dashboard.json has no uid")
	}
	grafana := strings.NewReplacer("$__rate_interval", "5m", "$endpoint", ".*")
	var out []expression
	ids := map[int]bool{}
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			if ids[p.ID] {
				t.Errorf("panel id %d used twice", p.ID)
			}
			ids[p.ID] = true
			walk(p.Panels)
			if p.Type == "row" {
				continue
			}
			if len(p.Targets) == 0 {
				t.Errorf("panel %q has no query", p.Title)
			}
			for _, tg := range p.Targets {
				out = append(out, expression{"panel " + p.Title + " " + tg.RefID, grafana.Replace(tg.Expr)})
			}
		}
	}
	walk(d.Panels)
	for _, v := range d.Templating.List {
		q, ok := v.Query.(map[string]any)
		if !ok {
			continue
		}
		// label_values(metric, label) is Grafana's, not PromQL: its metric
		// is what must exist.
		s, _ := q["query"].(string)
		if inner, ok := strings.CutPrefix(s, "label_values("); ok {
			metric, _, _ := strings.Cut(inner, ",")
			out = append(out, expression{"variable " + v.Name, strings.TrimSpace(metric)})
		}
	}
	return out
}

// TestRulesAndDashboardParse: every rule loads as Prometheus loads it, and
// every expression of the rules and the dashboard parses.
func TestRulesAndDashboardParse(t *testing.T) {
	exprs := append(ruleExpressions(t), dashboardExpressions(t)...)
	if len(exprs) < 20 {
		t.Fatalf("only %d expressions", len(exprs))
	}
	for _, e := range exprs {
		if _, err := promql.ParseExpr(e.expr); err != nil {
			t.Errorf("%s: %v\n%s", e.where, err, e.expr)
		}
	}
}

// selectors are the series an expression names, each with the label names
// its matchers use.
func selectors(t *testing.T, e expression) map[string][]string {
	t.Helper()
	node, err := promql.ParseExpr(e.expr)
	if err != nil {
		t.Fatalf("%s: %v", e.where, err)
	}
	out := map[string][]string{}
	var grouping []string
	parser.Inspect(node, func(n parser.Node, _ []parser.Node) error {
		switch n := n.(type) {
		case *parser.VectorSelector:
			name := n.Name
			var ls []string
			for _, m := range n.LabelMatchers {
				if m.Name == labels.MetricName {
					name = m.Value
					continue
				}
				ls = append(ls, m.Name)
			}
			out[name] = append(out[name], ls...)
		case *parser.AggregateExpr:
			grouping = append(grouping, n.Grouping...)
		}
		return nil
	})
	// A grouping label must be on one of the series grouped.
	out[""] = grouping
	return out
}

// scrape reads the server's /metrics.
func scrape(t *testing.T, base string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(b)))
	if err != nil {
		t.Fatalf("/metrics: %v", err)
	}
	return fams
}

// family finds the family a series name belongs to: itself, or the
// histogram whose _bucket, _sum or _count it is.
func family(fams map[string]*dto.MetricFamily, name string) (*dto.MetricFamily, bool) {
	if f, ok := fams[name]; ok {
		return f, true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if f, ok := fams[base]; ok && (f.GetType() == dto.MetricType_HISTOGRAM || f.GetType() == dto.MetricType_SUMMARY) {
				return f, true
			}
		}
	}
	return nil, false
}

func labelNames(f *dto.MetricFamily) map[string]bool {
	out := map[string]bool{}
	if f.GetType() == dto.MetricType_HISTOGRAM {
		out["le"] = true
	}
	for _, m := range f.Metric {
		for _, l := range m.Label {
			out[l.GetName()] = true
		}
	}
	return out
}

// TestExpressionsNameExportedSeries: every series a rule or a panel names
// is on the /metrics of a real server (Trident with an HTTP router behind
// its breaker, Relay pricing with Trident) once it has served a search, and
// every label the expression matches on or groups by is on those series
// (or is one Prometheus adds at scrape: instance, job).
func TestExpressionsNameExportedSeries(t *testing.T) {
	srv := startServer(t, "RATE_LIMIT=seed")
	search(t, srv.Base, nil)
	call(t, srv.Base+"/mcp", "estimate_fare", `{"pickup":"Glasgow Airport","dropoff":"Helensburgh"}`, nil)
	// start_booking's seed cap is 10 a minute: the 11th is refused 429,
	// which mcp_rate_limited_total counts.
	limited := false
	for i := 0; i < 11 && !limited; i++ {
		limited = post(t, srv.Base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"start_booking","arguments":{}}}`) == http.StatusTooManyRequests
	}
	if !limited {
		t.Fatal("11 start_booking calls with RATE_LIMIT=seed, none refused 429")
	}
	fams := scrape(t, srv.Base)

	var missing []string
	for _, e := range append(ruleExpressions(t), dashboardExpressions(t)...) {
		sel := selectors(t, e)
		known := map[string]bool{"instance": true, "job": true}
		for name, ls := range sel {
			if name == "" {
				continue
			}
			f, ok := family(fams, name)
			if !ok {
				missing = append(missing, e.where+": "+name)
				continue
			}
			have := labelNames(f)
			for l := range have {
				known[l] = true
			}
			for _, l := range ls {
				if !have[l] {
					t.Errorf("%s: %s has no label %q (it has %v)", e.where, name, l, keys(have))
				}
			}
		}
		for _, l := range sel[""] {
			if !known[l] {
				t.Errorf("%s: groups by %q, which none of its series has", e.where, l)
			}
		}
	}
	if len(missing) > 0 {
		var names []string
		for n := range fams {
			names = append(names, n)
		}
		sort.Strings(names)
		t.Errorf("series the server does not export:\n  %s\n/metrics has: %s", strings.Join(missing, "\n  "), strings.Join(names, " "))
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// post sends one MCP request and returns the HTTP status.
func post(t *testing.T, url, body string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
