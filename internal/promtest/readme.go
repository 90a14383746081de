package promtest

import (
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// CheckDocumented fails t unless the README at path lists, in the table of
// series of its "## Metrics" section, every series g gathers with its
// labels, and no series named with prefix that g does not gather: the
// table then says what /metrics has, however the collectors change.
func CheckDocumented(t testing.TB, g prometheus.Gatherer, path, prefix string) {
	t.Helper()
	got, documented := labels(t, g), documentedSeries(t, path)
	for name, labels := range got {
		doc, ok := documented[name]
		switch {
		case !ok:
			t.Errorf("%s does not list %s", path, name)
		case !slices.Equal(labels, doc):
			t.Errorf("%s lists %s with labels %q; it has %q", path, name, doc, labels)
		}
	}
	for name := range documented {
		if _, ok := got[name]; !ok && strings.HasPrefix(name, prefix) {
			t.Errorf("%s lists %s, which is not registered", path, name)
		}
	}
}

// documentedSeries reads the table of series in the README at path (the table
// of its "## Metrics" section whose header begins "| series |") as series
// name -> its labels, sorted.
func documentedSeries(t testing.TB, path string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Metrics\n")
	if !ok {
		t.Fatalf("%s has no ## Metrics section", path)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, table, ok := strings.Cut(section, "\n| series |")
	if !ok {
		t.Fatalf("%s: the Metrics section has no table of series", path)
	}
	table, _, _ = strings.Cut(table, "\n\n")
	out := map[string][]string{}
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue // the header's rest, the rule
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		labels := []string{}
		for _, l := range strings.Split(cells[2], ",") {
			if l = strings.Trim(strings.TrimSpace(l), "`"); l != "" {
				labels = append(labels, l)
			}
		}
		sort.Strings(labels)
		out[name] = labels
	}
	return out
}

// labels is what g gathers as family name -> the names of its labels,
// sorted (a histogram's le is not a label of its own).
func labels(t testing.TB, g prometheus.Gatherer) map[string][]string {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, f := range families {
		labels := []string{}
		if ms := f.GetMetric(); len(ms) > 0 {
			for _, l := range ms[0].GetLabel() {
				labels = append(labels, l.GetName())
			}
		}
		sort.Strings(labels)
		out[f.GetName()] = labels
	}
	return out
}
