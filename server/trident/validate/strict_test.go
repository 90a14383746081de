package validate

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf8"

	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
)

// alreadyNormalBefore is alreadyNormal as it was, asking json.Valid first
// and then reading the members of valid JSON loosely. The strict reading
// must answer exactly as it did.
func (s *Schema) alreadyNormalBefore(args []byte) bool {
	root := s.root
	if len(args) == 0 || args[0] != '{' || len(root.props) > 64 || root.addl != nil ||
		len(root.enum) > 0 || root.constVal != nil || !typeAllows(root.types, "object") || !json.Valid(args) {
		return false
	}
	var seen uint64
	b := skipSpace(args[1:])
	for b[0] != '}' {
		key, rest, ok := rawStringBefore(b)
		if !ok {
			return false
		}
		i := slices.IndexFunc(root.props, func(p prop) bool { return p.name == string(key) })
		if i < 0 || seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		rest = skipSpace(skipSpace(rest)[1:])
		if b, ok = root.props[i].n.plainScalarOKBefore(rest); !ok {
			return false
		}
		if b = skipSpace(b); b[0] == ',' {
			b = skipSpace(b[1:])
		}
	}
	for i, p := range root.props {
		if seen&(1<<i) == 0 && (p.n.defaultVal != nil || root.required[p.name]) {
			return false
		}
	}
	return true
}

func (n *node) plainScalarOKBefore(b []byte) ([]byte, bool) {
	if n.constVal != nil {
		return nil, false
	}
	switch b[0] {
	case '"':
		raw, rest, ok := rawStringBefore(b)
		if !ok || !typeAllows(n.types, "string") {
			return nil, false
		}
		l := utf8.RuneCount(raw)
		if n.minLength != nil && l < *n.minLength || n.maxLength != nil && l > *n.maxLength {
			return nil, false
		}
		if n.format != "" && !formatOK(n.format, string(raw)) {
			return nil, false
		}
		if len(n.enum) > 0 && !slices.ContainsFunc(n.enum, func(e any) bool { s, ok := e.(string); return ok && s == string(raw) }) {
			return nil, false
		}
		return rest, true
	case 't', 'f':
		if !typeAllows(n.types, "boolean") || len(n.enum) > 0 {
			return nil, false
		}
		if b[0] == 't' {
			return b[len("true"):], true
		}
		return b[len("false"):], true
	}
	return nil, false
}

func rawStringBefore(b []byte) (raw, rest []byte, ok bool) {
	if b[0] != '"' {
		return nil, nil, false
	}
	end := bytes.IndexByte(b[1:], '"') + 1
	raw = b[1:end]
	if bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw) {
		return nil, nil, false
	}
	return raw, b[end+1:], true
}

// strictSeeds are argument texts near the common call: valid, normal,
// and each a byte away from it in a way JSON or the schema refuses.
var strictSeeds = []string{
	`{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":false}`,
	`{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":false,}`,
	`{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":fals}`,
	`{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":falsey}`,
	`{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":true}}`,
	`{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive" "meetAndGreet":true}`,
	`{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet" true}`,
	"{\"pickup\":\"Helensburgh\tCentral\",\"dropoff\":\"Glasgow Airport\",\"vehicleType\":\"estate\",\"meetAndGreet\":true}",
	"{\"pickup\":\"Helensburgh\xffCentral\",\"dropoff\":\"Glasgow Airport\",\"vehicleType\":\"estate\",\"meetAndGreet\":true}",
	` { "pickup" : "abc" , "dropoff":"déf", "vehicleType":"wav" , "meetAndGreet" : true } `,
	`{"pickup":"abc","dropoff":"def","vehicleType":"mpv","passengers":6,"meetAndGreet":true}`,
	`{"pickup":"abc","dropoff":"def","vehicleType":"wav","departAt":"2025-12-25T10:00:00Z"}`,
	`{"pickup":"abc","dropoff":"def","vehicleType":"saloon"}x`, `{"pickup":"abc","dropoff":"def","vehicleType":"saloon"`,
	`{"pickup":"abc","dropoff":"def","vehicleType":"saloon",}`, `{,"pickup":"abc"}`, `{}`, `{`, `{ }`, `{"`, `{"pickup`, `{"pickup"`,
	`{"pickup":`, `{"pickup":"abc"`, `{"pickup":"abc",`, `{}}`, `{} `, "{}\u00a0",
	`{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":false,"alternativeVehicleTypes":["saloon","estate","executive","luxury","5seater","6seater","7seater","mpv","wav"]}`,
	`{"pickup":"abc","dropoff":"def","vehicleType":"saloon","meetAndGreet":true,"alternativeVehicleTypes":[ "mpv" , "wav" ]}`,
	`{"pickup":"abc","dropoff":"def","vehicleType":"saloon","meetAndGreet":true,"alternativeVehicleTypes":[]}`,
}

// TestStrictReadingAnswersAsBefore: over the seeds and many mutations of
// them (bytes dropped, doubled, replaced by JSON's delimiters, spaces,
// controls, invalid UTF-8), every schema's strict reading accepts exactly
// what json.Valid and the loose reading accepted.
func TestStrictReadingAnswersAsBefore(t *testing.T) {
	schemas := contractSchemas(t)
	rng := rand.New(rand.NewPCG(3, 2026))
	alphabet := []byte("{}[]:,\" \t\n\r\\tfalsenul0123456789-.eE\x00\x1f\x7f\xff\xc3\xa9ab")
	accepted := 0
	check := func(args []byte) {
		for i, s := range schemas {
			got, want := s.alreadyNormal(args), s.alreadyNormalBefore(args)
			if got != want && !acceptsArray(got, want, args) {
				t.Fatalf("schema %d: alreadyNormal(%q) = %v, before %v", i, args, got, want)
			}
			if got {
				accepted++
			}
		}
	}
	for _, seed := range strictSeeds {
		check([]byte(seed))
		for range 3000 {
			b := []byte(seed)
			for range 1 + rng.IntN(3) {
				if len(b) == 0 {
					break
				}
				k := rng.IntN(len(b))
				switch rng.IntN(3) {
				case 0:
					b = slices.Delete(b, k, k+1)
				case 1:
					b = slices.Insert(b, k, alphabet[rng.IntN(len(alphabet))])
				default:
					b[k] = alphabet[rng.IntN(len(alphabet))]
				}
			}
			check(b)
		}
	}
	if accepted < 1000 {
		t.Fatalf("only %d acceptances: the mutations do not exercise the accepting path", accepted)
	}
}

// FuzzStrictReading is TestStrictReadingAnswersAsBefore for the fuzzer.
func FuzzStrictReading(f *testing.F) {
	for _, s := range strictSeeds {
		f.Add([]byte(s))
	}
	schemas := contractSchemas(f)
	f.Fuzz(func(t *testing.T, args []byte) {
		for i, s := range schemas {
			if got, want := s.alreadyNormal(args), s.alreadyNormalBefore(args); got != want && !acceptsArray(got, want, args) {
				t.Fatalf("schema %d: alreadyNormal(%q) = %v, before %v", i, args, got, want)
			}
		}
	})
}

// acceptsArray reports whether the strict reading's accepting what the
// loose one refused is its reading arrays of strings, which the loose one
// never did: valid JSON with an array in it (FuzzAlreadyNormal and
// TestDecodeNormal hold the array's acceptance to the general check).
func acceptsArray(got, want bool, args []byte) bool {
	return got && !want && json.Valid(args) && bytes.IndexByte(args, '[') >= 0
}

// contractSchemas compiles the three tools' input schemas.
func contractSchemas(tb testing.TB) []*Schema {
	var schemas []*Schema
	for _, p := range []string{"schemas/estimate_fare.input.json", "schemas/start_booking.input.json", "schemas/get_service_info.input.json"} {
		b, err := tridentcontracts.Set.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		s, err := Compile(b)
		if err != nil {
			tb.Fatal(err)
		}
		schemas = append(schemas, s)
	}
	return schemas
}
