// Command gen-registry-enums writes the ids of Relay's registries into the
// input schemas that take them, as an enum: the provider ids of
// contracts/relay/providers.json into search_rides' providers and
// get_ride_booking_handoff's provider, the connector ids of
// contracts/relay/connectors.json into continue_journey's to_connector. So
// tools/list, which serves those schemas byte for byte, names every id an
// assistant may pass (the specification's "Optional provider IDs from
// tools/list ... Do not invent provider IDs"), and the registries stay the
// one place an id is added. `make generate` runs it before gen-contracts,
// which then types the enums; `make check-generated` fails when a schema's
// enum and its registry differ.
//
// It rewrites only the enum of each target and keeps the rest of the file
// byte for byte: the schemas are written as encoding/json's two-space
// indentation in their own key order, which [decodeOrdered] and
// [encodeOrdered] preserve (a test holds every schema to that round trip).
//
// Usage:
//
//	go run ./tools/cmd/gen-registry-enums -dir contracts/relay
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// target is one place an enum of registry ids goes.
type target struct {
	file     string   // below -dir
	pointer  []string // object keys from the root to the string schema
	registry string   // "providers" or "connectors"
}

var targets = []target{
	{"schemas/search_rides.input.json", []string{"properties", "providers", "items"}, "providers"},
	{"schemas/get_ride_booking_handoff.input.json", []string{"properties", "provider"}, "providers"},
	{"schemas/continue_journey.input.json", []string{"properties", "to_connector"}, "connectors"},
}

func main() {
	dir := flag.String("dir", "contracts/relay", "Relay's contract folder")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "gen-registry-enums:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	ids := map[string][]string{}
	for reg, file := range map[string]string{"providers": "providers.json", "connectors": "connectors.json"} {
		raw, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			return err
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(raw, &doc); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		var entries []struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(doc[reg], &entries); err != nil {
			return fmt.Errorf("%s: %s: %w", file, reg, err)
		}
		for _, e := range entries {
			ids[reg] = append(ids[reg], e.ID)
		}
		if len(ids[reg]) == 0 {
			return fmt.Errorf("%s lists no %s", file, reg)
		}
	}
	for _, t := range targets {
		path := filepath.Join(dir, t.file)
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out, err := setEnum(raw, t.pointer, ids[t.registry])
		if err != nil {
			return fmt.Errorf("%s: %w", t.file, err)
		}
		if string(out) != string(raw) {
			if err := os.WriteFile(path, out, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// setEnum sets the enum of the string schema at pointer in doc to ids,
// after its "type" when it has none yet.
func setEnum(doc []byte, pointer []string, ids []string) ([]byte, error) {
	root, err := decodeOrdered(doc)
	if err != nil {
		return nil, err
	}
	node, ok := root.(*object)
	for i, k := range pointer {
		if !ok {
			return nil, fmt.Errorf("/%s is not an object", strings.Join(pointer[:i], "/"))
		}
		var v any
		if v, ok = node.get(k); !ok {
			return nil, fmt.Errorf("no /%s", strings.Join(pointer[:i+1], "/"))
		}
		node, ok = v.(*object)
	}
	if !ok {
		return nil, fmt.Errorf("/%s is not an object", strings.Join(pointer, "/"))
	}
	if typ, _ := node.get("type"); typ != "string" {
		return nil, fmt.Errorf("/%s is not a string schema", strings.Join(pointer, "/"))
	}
	enum := make([]any, len(ids))
	for i, id := range ids {
		enum[i] = id
	}
	node.setAfter("enum", enum, "type")
	return encodeOrdered(root)
}
