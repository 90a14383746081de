package validate

import (
	"reflect"
	"testing"
)

var plainSeeds = []string{
	`{}`, `[]`, `{"a":1}`, ` { "a" : [ 1 , 2.50 , -3e2 , "x" , true , false , null , { } ] , "b" : "é·£" } `,
	`{"a":1,"a":2}`, `{"a":"x\"y"}`, `{"a":"\u0041"}`, "{\"a\":\"\xff\"}", `"s"`, `12`, `null`,
	`{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":false}`,
	`{"a":{"b":{"c":[[],[{}]]}}}`, `[1,]`, `{"a":}`, `{"a":1}x`,
}

// parsePlain must decode exactly as decodeNumbers does whenever it accepts.
func FuzzParsePlain(f *testing.F) {
	for _, s := range plainSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parsePlain([]byte(s))
		var want any
		err := decodeNumbers([]byte(s), &want)
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("parsePlain accepted %q, which encoding/json refuses: %v", s, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("parsePlain(%q) = %#v, encoding/json %#v", s, got, want)
		}
	})
}

func TestParsePlainFallsBack(t *testing.T) {
	for _, s := range []string{`{"a":"x\"y"}`, `{"a":"\u0041"}`, "{\"a\":\"\xff\"}", `[1,]`, `{"a":1}x`} {
		if _, ok := parsePlain([]byte(s)); ok {
			t.Errorf("parsePlain accepted %q", s)
		}
	}
	if _, ok := parsePlain([]byte(plainSeeds[3])); !ok {
		t.Errorf("parsePlain refused %q", plainSeeds[3])
	}
}
