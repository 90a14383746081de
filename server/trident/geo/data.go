package geo

import (
	"embed"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The gazetteer ships inside the binary so that a built server needs no files
// beside it and tests need no network. towns.csv, airports.csv and
// foreign_cities.csv are generated (tools/cmd/gen-places); places.csv,
// postcode_districts.csv, postcode_areas.csv and non_uk.txt are curated by
// hand, and so is roads.json, the road graph of the service area
// (tools/cmd/check-roads checks it). data/ATTRIBUTION.md names the sources
// and their licences.
//
//go:embed data/*.csv data/*.txt data/roads.json
var dataFS embed.FS

// readTable reads one embedded CSV file (with '#' comments and a header row)
// as maps from column name to value.
func readTable(name string) ([]map[string]string, error) {
	f, err := dataFS.Open("data/" + name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("geo: %s: header: %w", name, err)
	}
	var rows []map[string]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("geo: %s: %w", name, err)
		}
		row := make(map[string]string, len(header))
		for i, h := range header {
			row[h] = strings.TrimSpace(rec[i])
		}
		rows = append(rows, row)
	}
}

// readLines reads an embedded list, one entry a line, skipping '#' comments
// and blank lines.
func readLines(name string) ([]string, error) {
	b, err := dataFS.ReadFile("data/" + name)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out, nil
}

func parseLatLon(file string, row map[string]string) (float64, float64, error) {
	lat, err1 := strconv.ParseFloat(row["lat"], 64)
	lon, err2 := strconv.ParseFloat(row["lon"], 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("geo: %s: bad coordinates %q,%q", file, row["lat"], row["lon"])
	}
	return lat, lon, nil
}
