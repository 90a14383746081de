package jsontag

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestValidNameAsEncodingJSON holds ValidName to the member name
// encoding/json writes for a field tagged with each name.
func TestValidNameAsEncodingJSON(t *testing.T) {
	for _, name := range []string{"", "a", "fareGBP", "a b", "a-b", "é", "x1", "a,b", "a\"b", "a\\b", "a'b", "a`b", "!#$%&()*+-./:;<=>?@[]^_{|}~ ", "\u00a0", "日本"} {
		if strings.Contains(name, ",") || strings.Contains(name, "\"") || strings.Contains(name, "`") {
			if ValidName(name) {
				t.Errorf("ValidName(%q) = true, want false", name)
			}
			continue
		}
		typ := reflect.StructOf([]reflect.StructField{{Name: "Field", Type: reflect.TypeFor[int](), Tag: reflect.StructTag(`json:"` + name + `"`)}})
		b, err := json.Marshal(reflect.New(typ).Elem().Interface())
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]int
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		_, asWritten := m[name]
		if got := ValidName(name); got != asWritten {
			t.Errorf("ValidName(%q) = %v; encoding/json takes it as the name: %v (%s)", name, got, asWritten, b)
		}
	}
}
