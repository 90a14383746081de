package fare_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/tridenttaxis/trident-mcp/server/trident/fare"
)

const schemaPath = "../../../contracts/trident/tariff/tariff.schema.json"

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("tariff.schema.json", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("tariff.schema.json")
	if err != nil {
		t.Fatalf("compile %s: %v", schemaPath, err)
	}
	return s
}

// TestFileMatchesSchema validates the shipped tariff against its schema.
func TestFileMatchesSchema(t *testing.T) {
	s := compileSchema(t)
	data, err := os.ReadFile(tariffPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("%s does not match %s: %#v", tariffPath, schemaPath, err)
	}
}

// mutate applies edit to the decoded shipped tariff and re-encodes it.
func mutate(t *testing.T, edit func(m map[string]any)) []byte {
	t.Helper()
	data, err := os.ReadFile(tariffPath)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func obj(v any, path ...any) map[string]any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v.(map[string]any)
}

// TestParseRejects breaks the tariff in ways that must not load. Each broken
// file is also checked against the schema: where the schema can see the fault,
// it must reject the file too, so the two stay in step.
func TestParseRejects(t *testing.T) {
	schema := compileSchema(t)
	tests := []struct {
		name        string
		edit        func(m map[string]any)
		errContains string
		schemaSees  bool
	}{
		{"unknown field", func(m map[string]any) { m["surcharge"] = 1 }, "unknown field", true},
		{"missing version", func(m map[string]any) { delete(m, "version") }, "version", true},
		{"bad time zone", func(m map[string]any) { m["timeZone"] = "Mars/Olympus" }, "timeZone", false},
		{"daily gap", func(m map[string]any) {
			obj(m, "schedule", "daily", 0)["from"] = "07:30"
		}, "07:00 is covered by 0 windows", false},
		{"daily overlap", func(m map[string]any) {
			obj(m, "schedule", "daily", 0)["to"] = "22:30"
		}, "22:00 is covered by 2 windows", false},
		{"bad clock", func(m map[string]any) { obj(m, "schedule", "daily", 0)["from"] = "24:00" }, "hh:mm", true},
		{"no such day", func(m map[string]any) { obj(m, "schedule", "special", 0)["from"] = "02-30T07:00" }, "no such day", false},
		{"unknown band in schedule", func(m map[string]any) { obj(m, "schedule", "special", 0)["band"] = "weekend" }, "weekend", true},
		{"float multiplier", func(m map[string]any) { obj(m, "vehicles", 2)["meterMultiplier"] = 0.99 }, "meterMultiplier", true},
		{"bad multiplier", func(m map[string]any) { obj(m, "vehicles", 2)["meterMultiplier"] = "1/0" }, "meterMultiplier", true},
		{"negative fee", func(m map[string]any) { obj(m, "surcharges", "airport")["pence"] = -1 }, "surcharges.airport", true},
		{"fee in pounds", func(m map[string]any) { obj(m, "surcharges", "airport")["pence"] = 10.5 }, "pence", true},
		{"unknown default vehicle", func(m map[string]any) { m["defaultVehicle"] = "bus" }, "defaultVehicle", false},
		{"duplicate vehicle", func(m map[string]any) { obj(m, "vehicles", 1)["id"] = "saloon" }, "listed twice", false},
		{"priced vehicle without a rule", func(m map[string]any) { delete(obj(m, "vehicles", 2), "rule") }, "needs a rule", false},
		{"band above day without rule", func(m map[string]any) { delete(obj(m, "bands", 1), "rule") }, "rule and groupRule", false},
		{"zero unit yards", func(m map[string]any) { obj(m, "bands", 0, "meter")["unitYards"] = 0 }, "out of range", true},
		{"note on unlisted vehicle", func(m map[string]any) { obj(m, "vehicles", 1)["note"] = "x" }, "note", false},
		{"bad rounding", func(m map[string]any) { obj(m, "fixedPrice", "rounding")["mode"] = "banker" }, "rounding", true},
		{"no local radius", func(m map[string]any) { obj(m, "surcharges", "eightSeaterLocal")["radiusMiles"] = 0 }, "eightSeaterLocal", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := mutate(t, tt.edit)
			_, err := fare.Parse(data)
			if !errors.Is(err, fare.ErrInvalidTariff) || !strings.Contains(err.Error(), tt.errContains) {
				t.Errorf("Parse error = %v, want ErrInvalidTariff mentioning %q", err, tt.errContains)
			}
			var doc any
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			if serr := schema.Validate(doc); tt.schemaSees && serr == nil {
				t.Errorf("schema accepted a tariff that Parse rejects")
			}
		})
	}
	for _, bad := range []string{``, `null`, `[]`, `{"version":`, `{} {}`} {
		if _, err := fare.Parse([]byte(bad)); !errors.Is(err, fare.ErrInvalidTariff) {
			t.Errorf("Parse(%q) = %v, want ErrInvalidTariff", bad, err)
		}
	}
}

// TestDataDrivenRules shows that counting and rounding follow the file: the
// same 22-mile 5-seater trip (multiplier 1) under other settings.
func TestDataDrivenRules(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(m map[string]any)
		pence int64
		miles float64 // RoundDistanceMiles(2000 m)
		secs  float64 // RoundDurationSeconds(61)
	}{
		{"shipped: pro rata, up to 10p", func(map[string]any) {}, 5300, 1, 60},
		{"meter drops: 216 started units", func(m map[string]any) {
			obj(m, "fixedPrice")["distance"] = "drops"
			obj(m, "fixedPrice", "rounding")["stepPence"] = 1
		}, 345 + 216*23, 1, 60},
		{"nearest 10p", func(m map[string]any) { obj(m, "fixedPrice", "rounding")["mode"] = "nearest" }, 5290, 1, 60},
		{"down to £1, distance and duration up", func(m map[string]any) {
			obj(m, "fixedPrice", "rounding")["mode"] = "down"
			obj(m, "fixedPrice", "rounding")["stepPence"] = 100
			obj(m, "rounding")["distanceMiles"] = "up"
			obj(m, "rounding")["durationMinutes"] = "up"
		}, 5200, 2, 120},
		{"distance and duration down", func(m map[string]any) {
			obj(m, "rounding")["distanceMiles"] = "down"
			obj(m, "rounding")["durationMinutes"] = "down"
		}, 5300, 1, 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := fare.Parse(mutate(t, tt.edit))
			if err != nil {
				t.Fatal(err)
			}
			q, err := tr.Quote(fare.Trip{Vehicle: "5seater", DistanceMiles: 22, Depart: noonInJune})
			if err != nil {
				t.Fatal(err)
			}
			if q.FarePence != tt.pence {
				t.Errorf("fare = %dp, want %dp", q.FarePence, tt.pence)
			}
			if got := tr.RoundDistanceMiles(2000); got != tt.miles {
				t.Errorf("RoundDistanceMiles(2000) = %v, want %v", got, tt.miles)
			}
			if got := tr.RoundDurationSeconds(61); got != tt.secs {
				t.Errorf("RoundDurationSeconds(61) = %v, want %v", got, tt.secs)
			}
		})
	}
	err := (&fare.CapacityError{Vehicle: "saloon", Capacity: 4, Passengers: 6}).Error()
	if want := `fare: vehicle "saloon" seats up to 4 passengers, but 6 were requested`; err != want {
		t.Errorf("CapacityError = %q, want %q", err, want)
	}
	for p, want := range map[int64]string{0: "£0.00", 5: "£0.05", 11800: "£118.00", -250: "-£2.50"} {
		if got := fare.FormatGBP(p); got != want {
			t.Errorf("FormatGBP(%d) = %q, want %q", p, got, want)
		}
	}
}
