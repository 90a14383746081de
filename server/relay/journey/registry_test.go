package journey

import (
	"strings"
	"testing"
)

func TestParseRegistryRefuses(t *testing.T) {
	conn := func(id, args string) string {
		return `{"id": "` + id + `", "name": "N", "description": "d", "entry_tool": "t", "enabled": true, "arguments": [` + args + `]}`
	}
	arg := `{"name": "city", "from": "destination_city", "required": true}`
	tests := map[string]struct{ doc, want string }{
		"not JSON":               {`{`, "connector registry"},
		"no connectors":          {`{"connectors": []}`, "connectors.schema.json"},
		"unknown member":         {`{"connectors": [` + conn("a", arg) + `], "extra": 1}`, "connectors.schema.json"},
		"a coordinate field":     {`{"connectors": [` + conn("a", `{"name": "lat", "from": "pickup_latitude", "required": true}`) + `]}`, "connectors.schema.json"},
		"bad id":                 {`{"connectors": [` + conn("Flights!", arg) + `]}`, "connectors.schema.json"},
		"no arguments":           {`{"connectors": [` + conn("a", ``) + `]}`, "connectors.schema.json"},
		"required not a boolean": {`{"connectors": [` + conn("a", `{"name": "city", "from": "destination_city", "required": "yes"}`) + `]}`, "connectors.schema.json"},
		"duplicate id":           {`{"connectors": [` + conn("a", arg) + `,` + conn("a", arg) + `]}`, `"a" listed twice`},
		"duplicate argument":     {`{"connectors": [` + conn("a", arg+`,`+arg) + `]}`, `argument "city" twice`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := ParseRegistry([]byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}
