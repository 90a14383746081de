package jsonenc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	relaytypes "github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	tridenttypes "github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
	"github.com/tridenttaxis/trident-mcp/internal/jsonenc"
)

// stdlib is the reference: a json.Encoder with SetEscapeHTML(false),
// without its newline.
func stdlib(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// compare fails t unless v's AppendJSON writes what encoding/json writes,
// or fails where encoding/json fails, with the same error text.
func compare(t testing.TB, what string, v any) {
	t.Helper()
	a, ok := v.(jsonenc.Appender)
	if !ok {
		t.Fatalf("%s: %T has no AppendJSON", what, v)
	}
	want, wantErr := stdlib(v)
	prefix := []byte("prefix:")
	got, gotErr := a.AppendJSON(bytes.Clone(prefix))
	switch {
	case wantErr != nil || gotErr != nil:
		if wantErr == nil || gotErr == nil || wantErr.Error() != gotErr.Error() {
			t.Fatalf("%s: %T: error %v, encoding/json's %v", what, v, gotErr, wantErr)
		}
	case !bytes.HasPrefix(got, prefix):
		t.Fatalf("%s: %T: dst's bytes were not kept: %q", what, v, got)
	case !bytes.Equal(got[len(prefix):], want):
		t.Fatalf("%s: %T:\n got  %s\n want %s", what, v, got[len(prefix):], want)
	}
}

// tool is one tool's argument and result types, as new pointers.
type tool struct {
	in, out func() any
}

var relayTools = map[string]tool{
	relaytypes.ToolSearchRides:           {func() any { return new(relaytypes.SearchRidesInput) }, func() any { return new(relaytypes.SearchRidesOutput) }},
	relaytypes.ToolCompareRides:          {func() any { return new(relaytypes.CompareRidesInput) }, func() any { return new(relaytypes.CompareRidesOutput) }},
	relaytypes.ToolResolveRide:           {func() any { return new(relaytypes.ResolveRideInput) }, func() any { return new(relaytypes.ResolveRideOutput) }},
	relaytypes.ToolGetRideBookingHandoff: {func() any { return new(relaytypes.GetRideBookingHandoffInput) }, func() any { return new(relaytypes.GetRideBookingHandoffOutput) }},
	relaytypes.ToolContinueJourney:       {func() any { return new(relaytypes.ContinueJourneyInput) }, func() any { return new(relaytypes.ContinueJourneyOutput) }},
}

var tridentTools = map[string]tool{
	tridenttypes.ToolEstimateFare:   {func() any { return new(tridenttypes.EstimateFareInput) }, func() any { return new(tridenttypes.EstimateFareOutput) }},
	tridenttypes.ToolGetServiceInfo: {func() any { return new(tridenttypes.GetServiceInfoInput) }, func() any { return new(tridenttypes.GetServiceInfoOutput) }},
	tridenttypes.ToolStartBooking:   {func() any { return new(tridenttypes.StartBookingInput) }, func() any { return new(tridenttypes.StartBookingOutput) }},
}

// roots are the types every generated struct is reached from.
func roots() []reflect.Type {
	var out []reflect.Type
	for _, m := range []map[string]tool{relayTools, tridentTools} {
		for _, tl := range m {
			out = append(out, reflect.TypeOf(tl.in()).Elem(), reflect.TypeOf(tl.out()).Elem())
		}
	}
	return append(out, reflect.TypeFor[relaytypes.Refusal]())
}

// sample is one file of contracts/*/samples.
type sample struct {
	Request struct {
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	} `json:"request"`
	Response struct {
		Result struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
			IsError           bool            `json:"isError"`
		} `json:"result"`
	} `json:"response"`
}

// TestSamplesMatchEncodingJSON: every sample's arguments and structured
// result, decoded into its type, encode as encoding/json encodes them.
func TestSamplesMatchEncodingJSON(t *testing.T) {
	n := 0
	for _, ep := range []struct {
		dir   string
		tools map[string]tool
	}{{"relay", relayTools}, {"trident", tridentTools}} {
		root := filepath.Join("..", "..", "contracts", ep.dir, "samples")
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(p) != ".json" || d.Name() == "index.json" {
				return err
			}
			raw, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			var s sample
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			tl, ok := ep.tools[s.Request.Params.Name]
			if !ok && s.Response.Result.StructuredContent == nil {
				return nil // a refused call to an unknown tool: nothing typed in it
			}
			if !ok {
				t.Fatalf("%s: tool %q has no types in this test", p, s.Request.Params.Name)
			}
			decodeCompare(t, p+" arguments", s.Request.Params.Arguments, tl.in())
			if sc := s.Response.Result.StructuredContent; sc != nil {
				out := tl.out()
				if s.Response.Result.IsError {
					out = new(relaytypes.Refusal)
				}
				decodeCompare(t, p+" structuredContent", sc, out)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 20 {
		t.Fatalf("only %d samples found", n)
	}
}

func decodeCompare(t *testing.T, what string, raw json.RawMessage, ptr any) {
	t.Helper()
	if err := json.Unmarshal(raw, ptr); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	v := reflect.ValueOf(ptr).Elem().Interface()
	compare(t, what, v)
	compare(t, what+" (pointer)", ptr)
}

// TestEveryStructHasAppendJSON: every struct type declared in the
// generated types is reached from roots and has AppendJSON, so the fuzz
// and random tests below cover all of them.
func TestEveryStructHasAppendJSON(t *testing.T) {
	reached := map[string]reflect.Type{}
	var walk func(reflect.Type)
	walk = func(rt reflect.Type) {
		switch rt.Kind() {
		case reflect.Pointer, reflect.Slice:
			walk(rt.Elem())
		case reflect.Struct:
			key := rt.PkgPath() + "." + rt.Name()
			if _, ok := reached[key]; ok {
				return
			}
			reached[key] = rt
			for i := range rt.NumField() {
				walk(rt.Field(i).Type)
			}
		}
	}
	for _, r := range roots() {
		walk(r)
	}
	appender := reflect.TypeFor[jsonenc.Appender]()
	for key, rt := range reached {
		if !rt.Implements(appender) || !reflect.PointerTo(rt).Implements(appender) {
			t.Errorf("%s has no AppendJSON", key)
		}
	}
	declared := 0
	for _, ep := range []string{"relay", "trident"} {
		p := filepath.Join("..", "..", "gen", ep, "mcptypes", "types.gen.go")
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		pkg := "github.com/tridenttaxis/trident-mcp/gen/" + ep + "/mcptypes"
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range gd.Specs {
				ts, ok := s.(*ast.TypeSpec)
				if !ok || ts.Assign.IsValid() {
					continue
				}
				if _, ok := ts.Type.(*ast.StructType); !ok {
					continue
				}
				declared++
				if _, ok := reached[pkg+"."+ts.Name.Name]; !ok {
					t.Errorf("%s.%s is not reached from the test's roots: add its tool", pkg, ts.Name.Name)
				}
			}
		}
	}
	if declared < 30 || len(reached) != declared {
		t.Errorf("%d struct types declared, %d reached", declared, len(reached))
	}
}

// Append refuses what it cannot encode and leaves dst alone.
func TestAppendFallsBack(t *testing.T) {
	dst := []byte("x")
	var nilOut *tridenttypes.EstimateFareOutput
	for _, v := range []any{nil, 42, map[string]any{"a": 1}, nilOut, tridenttypes.EstimateFareOutput{FareGBP: math.NaN()}} {
		got, ok := jsonenc.Append(dst, v)
		if ok || string(got) != "x" {
			t.Errorf("Append(%#v) = %q, %v; want the fallback", v, got, ok)
		}
	}
	got, ok := jsonenc.Append(dst, tridenttypes.EstimateFareOutput{FareGBP: 1.5, AppliedRules: []string{}})
	want, _ := stdlib(tridenttypes.EstimateFareOutput{FareGBP: 1.5, AppliedRules: []string{}})
	if !ok || string(got) != "x"+string(want) {
		t.Errorf("Append = %q, %v; want x%s", got, ok, want)
	}
	var e *json.UnsupportedValueError
	if _, err := (tridenttypes.EstimateFareOutput{FareGBP: math.Inf(-1)}).AppendJSON(nil); !errors.As(err, &e) || err.Error() != "json: unsupported value: -Inf" {
		t.Errorf("-Inf: error %v", err)
	}
}

// interestingFloats are floats around encoding/json's format switches
// (1e-6 and 1e21), its exponent clean-up, and the extremes.
func interestingFloats() []float64 {
	fs := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 62.4, 1e-6, 1e-7, 1e-9, 1e-10, 1e-100, 1e20, 1e21, 1e22, 1e100, 123456789012345678, 5e-324, math.MaxFloat64, math.SmallestNonzeroFloat64, 1.0000000000000002, 0.30000000000000004}
	for _, f := range []float64{1e-6, 1e21} {
		fs = append(fs, math.Nextafter(f, 0), math.Nextafter(f, math.Inf(1)))
	}
	for _, f := range fs[:len(fs):len(fs)] {
		fs = append(fs, -f)
	}
	return fs
}

func TestAppendFloatMatchesEncodingJSON(t *testing.T) {
	fs := interestingFloats()
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		fs = append(fs, math.Float64frombits(r.Uint64()))
	}
	for _, f := range append(fs, math.NaN(), math.Inf(1), math.Inf(-1)) {
		want, wantErr := stdlib(f)
		got, err := jsonenc.AppendFloat64(nil, f)
		if (err != nil) != (wantErr != nil) || err != nil && err.Error() != wantErr.Error() || !bytes.Equal(got, want) {
			t.Fatalf("%v (%x): %q, %v; encoding/json %q, %v", f, math.Float64bits(f), got, err, want, wantErr)
		}
		f32 := float32(f)
		want, wantErr = stdlib(f32)
		got, err = jsonenc.AppendFloat32(nil, f32)
		if (err != nil) != (wantErr != nil) || err != nil && err.Error() != wantErr.Error() || !bytes.Equal(got, want) {
			t.Fatalf("float32 %v: %q, %v; encoding/json %q, %v", f32, got, err, want, wantErr)
		}
	}
}

// AppendValue is encoding/json's own bytes, appended.
func TestAppendValue(t *testing.T) {
	v := map[string]any{"b": "<&>", "a": []any{1.5, nil, "\u2028"}}
	want, _ := stdlib(v)
	got, err := jsonenc.AppendValue([]byte("x"), v)
	if err != nil || string(got) != "x"+string(want) {
		t.Fatalf("AppendValue = %q, %v; want x%s", got, err, want)
	}
	if got, err := jsonenc.AppendValue([]byte("x"), make(chan int)); err == nil || string(got) != "x" {
		t.Fatalf("AppendValue(chan) = %q, %v; want an error and dst", got, err)
	}
}

// TestCompact: a Compact value is appended as it is, and encoding/json
// writes the same bytes for it, alone and as a field; empty is null.
func TestCompact(t *testing.T) {
	for _, c := range []jsonenc.Compact{`{"a":[1,"x&y"],"b":{}}`, `"s"`, `null`, ``} {
		want := string(c)
		if c == "" {
			want = "null"
		}
		got, ok := jsonenc.Append([]byte("["), c)
		if !ok || string(got) != "["+want {
			t.Errorf("Append(%q) = %q, %v", c, got, ok)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(struct{ V jsonenc.Compact }{c}); err != nil || buf.String() != `{"V":`+want+"}\n" {
			t.Errorf("encoding/json of %q: %q, %v", c, buf.String(), err)
		}
	}
}
