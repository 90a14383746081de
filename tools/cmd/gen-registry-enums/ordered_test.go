package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every schema of Relay's contract folder survives the ordered round trip
// byte for byte, so the generator changes nothing but the enums it sets.
func TestRoundTripKeepsSchemas(t *testing.T) {
	files, err := filepath.Glob("../../../contracts/relay/schemas/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no schemas found: %v", err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := decodeOrdered(raw)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out, err := encodeOrdered(v)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if string(out) != string(raw) {
			t.Errorf("%s: the round trip changed the file", f)
		}
	}
}

func TestSetEnum(t *testing.T) {
	doc := []byte("{\n  \"properties\": {\n    \"p\": {\n      \"type\": \"string\",\n      \"description\": \"d\"\n    }\n  }\n}\n")
	out, err := setEnum(doc, []string{"properties", "p"}, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"properties\": {\n    \"p\": {\n      \"type\": \"string\",\n      \"enum\": [\n        \"a\",\n        \"b\"\n      ],\n      \"description\": \"d\"\n    }\n  }\n}\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	again, err := setEnum(out, []string{"properties", "p"}, []string{"c"})
	if err != nil || !strings.Contains(string(again), "\"c\"") || strings.Contains(string(again), "\"a\"") {
		t.Errorf("replacing the enum: %v\n%s", err, again)
	}
	if _, err := setEnum(doc, []string{"properties", "q"}, []string{"a"}); err == nil {
		t.Error("a missing target must fail")
	}
}
