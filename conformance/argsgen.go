package conformance

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Violation is one way to break one constraint of an input schema, with the
// reason a Zod v3 validator words it (the server's -32602 message is
// "Invalid params: <Field>: <Reason>").
type Violation struct {
	// Field is the path the server reports, e.g. "pickup", or
	// "alternativeVehicleTypes.0" for an array's item.
	Field string
	// Key is the argument the violation replaces when it is not Field
	// (an item's violation replaces the whole array).
	Key string
	// Kind names the constraint: too_short, too_long, bad_enum, wrong_type,
	// not_integer, too_small, too_big, bad_datetime, missing, too_few,
	// too_many, bad_item_enum.
	Kind string
	// Value replaces the field; ignored when Kind is "missing" (the field is removed).
	Value any
	// Reason is the Zod v3 wording of the issue.
	Reason string
}

// Name is a short label for spec names, e.g. "pickup too_short".
func (v Violation) Name() string { return v.Field + " " + v.Kind }

// Apply returns a copy of args with the violation applied.
func (v Violation) Apply(args map[string]any) map[string]any {
	out := maps.Clone(args)
	if v.Kind == "missing" {
		delete(out, v.key())
	} else {
		out[v.key()] = v.Value
	}
	return out
}

func (v Violation) key() string {
	if v.Key != "" {
		return v.Key
	}
	return v.Field
}

// ExpectedMessage is the -32602 message a strict server sends.
func (v Violation) ExpectedMessage() string {
	return "Invalid params: " + v.Field + ": " + v.Reason
}

// MessagePrefix is the part of the message every implementation must send.
func (v Violation) MessagePrefix() string { return "Invalid params: " + v.Field + ": " }

// Violations lists, for every property of an object input schema, one
// violation of each constraint it declares, in a stable order.
func Violations(s *Schema) []Violation {
	var out []Violation
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		if s.IsRequired(name) {
			out = append(out, Violation{Field: name, Kind: "missing", Reason: "Required"})
		}
		switch p.TypeName() {
		case "string":
			if p.MinLength != nil && *p.MinLength > 0 {
				n := *p.MinLength
				out = append(out, Violation{Field: name, Kind: "too_short", Value: strings.Repeat("a", n-1), Reason: fmt.Sprintf("String must contain at least %d character(s)", n)})
			}
			if p.MaxLength != nil {
				n := *p.MaxLength
				out = append(out, Violation{Field: name, Kind: "too_long", Value: strings.Repeat("a", n+1), Reason: fmt.Sprintf("String must contain at most %d character(s)", n)})
			}
			if len(p.Enum) > 0 {
				out = append(out, Violation{Field: name, Kind: "bad_enum", Value: "bus", Reason: fmt.Sprintf("Invalid enum value. Expected %s, received 'bus'", zodJoin(p.Enum))})
			}
			if p.Format == "date-time" {
				out = append(out, Violation{Field: name, Kind: "bad_datetime", Value: "next tuesday at 3", Reason: "Invalid datetime"})
			}
			out = append(out, Violation{Field: name, Kind: "wrong_type", Value: 42, Reason: "Expected " + expectedString(p) + ", received number"})
		case "integer", "number":
			if p.TypeName() == "integer" {
				mid := 2.5
				if p.Minimum != nil && p.Maximum != nil {
					mid = math.Floor((*p.Minimum+*p.Maximum)/2) + 0.5
				}
				out = append(out, Violation{Field: name, Kind: "not_integer", Value: mid, Reason: "Expected integer, received float"})
			}
			if p.Minimum != nil {
				out = append(out, Violation{Field: name, Kind: "too_small", Value: *p.Minimum - 1, Reason: "Number must be greater than or equal to " + num(*p.Minimum)})
			}
			if p.Maximum != nil {
				out = append(out, Violation{Field: name, Kind: "too_big", Value: *p.Maximum + 1, Reason: "Number must be less than or equal to " + num(*p.Maximum)})
			}
			out = append(out, Violation{Field: name, Kind: "wrong_type", Value: "six", Reason: "Expected number, received string"})
		case "boolean":
			out = append(out, Violation{Field: name, Kind: "wrong_type", Value: "yes", Reason: "Expected boolean, received string"})
		case "array":
			if p.MinItems != nil && *p.MinItems > 0 {
				n := *p.MinItems
				out = append(out, Violation{Field: name, Kind: "too_few", Value: items(p, n-1), Reason: fmt.Sprintf("Array must contain at least %d element(s)", n)})
			}
			if p.MaxItems != nil {
				n := *p.MaxItems
				out = append(out, Violation{Field: name, Kind: "too_many", Value: items(p, n+1), Reason: fmt.Sprintf("Array must contain at most %d element(s)", n)})
			}
			if p.Items != nil && len(p.Items.Enum) > 0 {
				out = append(out, Violation{Field: name + ".0", Key: name, Kind: "bad_item_enum", Value: []any{"bus"}, Reason: fmt.Sprintf("Invalid enum value. Expected %s, received 'bus'", zodJoin(p.Items.Enum))})
			}
			out = append(out, Violation{Field: name, Kind: "wrong_type", Value: "six", Reason: "Expected array, received string"})
		}
	}
	return out
}

// items is n valid items of the array schema p, the first of its enum
// repeated (or nil items when it has none): what a length check counts.
func items(p *Schema, n int) []any {
	out := make([]any, n)
	if p.Items != nil && len(p.Items.Enum) > 0 {
		for i := range out {
			out[i] = p.Items.Enum[0]
		}
	}
	return out
}

// expectedString is what Zod names as the expected type of a string field.
func expectedString(p *Schema) string {
	if len(p.Enum) > 0 {
		return zodJoin(p.Enum)
	}
	return "string"
}

// zodJoin formats enum values as Zod v3's util.joinValues does: 'a' | 'b'.
func zodJoin(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		if s, ok := v.(string); ok {
			parts[i] = "'" + s + "'"
		} else {
			parts[i] = fmt.Sprint(v)
		}
	}
	return strings.Join(parts, " | ")
}

func num(f float64) string {
	if f == math.Trunc(f) {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprint(f)
}

// Places are addresses the generators draw valid strings from: mostly places
// in or near the service area (so that many generated cases succeed) and
// strings no geocoder knows (so that many draw GEOCODE_FAILED).
var Places = []string{
	"Helensburgh Central Station", "Glasgow Airport", "Balloch", "Dumbarton",
	"Glasgow Central Station", "Edinburgh Airport", "Alexandria", "Cardross",
	"Garelochhead", "Rhu", "Arrochar", "Paisley", "Helensburgh", "Luss",
	"Glasgow Queen Street Station", "Prestwick Airport", "G84 7HL", "Oban",
}

// Generator draws argument sets from an input schema. It is deterministic for
// a given seed, so a failing case is reproduced by rerunning with that seed.
type Generator struct {
	rng *rand.Rand
}

// NewGenerator returns a Generator seeded with seed (and a per-stream salt,
// so that the tools' streams do not repeat one another).
func NewGenerator(seed int64, salt string) *Generator {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(salt); i++ {
		h = (h ^ uint64(salt[i])) * 1099511628211
	}
	return &Generator{rng: rand.New(rand.NewPCG(uint64(seed), h))}
}

// Valid returns arguments that satisfy s: every required property and each
// optional one with probability one half.
func (g *Generator) Valid(s *Schema) map[string]any {
	out := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if !s.IsRequired(name) && g.rng.IntN(2) == 0 {
			continue
		}
		out[name] = g.validValue(s.Properties[name])
	}
	return out
}

func (g *Generator) validValue(p *Schema) any {
	if len(p.Enum) > 0 {
		return p.Enum[g.rng.IntN(len(p.Enum))]
	}
	switch p.TypeName() {
	case "string":
		if p.Format == "date-time" {
			return g.dateTime()
		}
		lo, hi := 0, 200
		if p.MinLength != nil {
			lo = *p.MinLength
		}
		if p.MaxLength != nil {
			hi = *p.MaxLength
		}
		if g.rng.IntN(3) > 0 {
			place := Places[g.rng.IntN(len(Places))]
			if len(place) >= lo && len(place) <= hi {
				return place
			}
		}
		switch g.rng.IntN(4) {
		case 0:
			return g.word(lo)
		case 1:
			return g.word(hi)
		default:
			return g.word(lo + g.rng.IntN(min(hi, lo+40)-lo+1))
		}
	case "integer":
		lo, hi := -1000.0, 1000.0
		if p.Minimum != nil {
			lo = *p.Minimum
		}
		if p.Maximum != nil {
			hi = *p.Maximum
		}
		return int64(lo) + g.rng.Int64N(int64(hi-lo)+1)
	case "number":
		lo, hi := -1000.0, 1000.0
		if p.Minimum != nil {
			lo = *p.Minimum
		}
		if p.Maximum != nil {
			hi = *p.Maximum
		}
		return lo + g.rng.Float64()*(hi-lo)
	case "boolean":
		return g.rng.IntN(2) == 0
	case "array":
		lo, hi := 0, 4
		if p.MinItems != nil {
			lo = *p.MinItems
		}
		if p.MaxItems != nil {
			hi = *p.MaxItems
		}
		out := make([]any, lo+g.rng.IntN(hi-lo+1))
		for i := range out {
			out[i] = g.validValue(p.Items)
		}
		return out
	}
	return nil
}

// word returns n printable ASCII characters that start and end with a letter
// (so that trimming, if a server trims, changes nothing).
func (g *Generator) word(n int) string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	const chars = letters + "0123456789 -,'."
	b := make([]byte, n)
	for i := range b {
		if i == 0 || i == n-1 {
			b[i] = letters[g.rng.IntN(len(letters))]
		} else {
			b[i] = chars[g.rng.IntN(len(chars))]
		}
	}
	return string(b)
}

func (g *Generator) dateTime() string {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	t := start.Add(time.Duration(g.rng.Int64N(int64(3 * 365 * 24 * time.Hour))))
	t = t.Truncate(time.Second)
	switch g.rng.IntN(3) {
	case 0:
		return t.Format("2006-01-02T15:04:05Z")
	case 1:
		return t.Add(time.Duration(g.rng.IntN(1000)) * time.Millisecond).Format("2006-01-02T15:04:05.000Z")
	default:
		// Christmas and New Year, where the holiday tariff applies.
		d := []string{"12-25", "12-26", "01-01"}[g.rng.IntN(3)]
		return fmt.Sprintf("%d-%sT%02d:%02d:00Z", 2025+g.rng.IntN(3), d, g.rng.IntN(24), g.rng.IntN(60))
	}
}

// Invalid returns valid arguments with exactly one constraint broken, and the
// violation (whose Reason is Zod's wording of the first issue, for the
// record: the property specs check only the field prefix).
func (g *Generator) Invalid(s *Schema) (map[string]any, Violation) {
	args := g.Valid(s)
	var candidates []Violation
	for _, v := range Violations(s) {
		candidates = append(candidates, g.randomise(s.Properties[v.key()], v))
	}
	if len(candidates) == 0 {
		return args, Violation{}
	}
	v := candidates[g.rng.IntN(len(candidates))]
	return v.Apply(args), v
}

// randomise swaps a violation's fixed value for a random one of the same kind.
func (g *Generator) randomise(p *Schema, v Violation) Violation {
	switch v.Kind {
	case "too_short":
		v.Value = g.word(g.rng.IntN(*p.MinLength))
		if v.Value == "" || g.rng.IntN(4) == 0 {
			v.Value = strings.Repeat(" ", g.rng.IntN(*p.MinLength))
		}
	case "too_long":
		v.Value = g.word(*p.MaxLength + 1 + g.rng.IntN(60))
	case "bad_enum":
		v.Value = []string{"bus", "Saloon", "MPV", " saloon", "limo", "", "taxi"}[g.rng.IntN(7)]
	case "bad_datetime":
		v.Value = []string{"tomorrow", "2025-13-01T10:00:00Z", "2025-06-31T25:00:00Z", "10:00", "2025/06/01 10:00", "", "2025-06-01T10:00"}[g.rng.IntN(7)]
	case "wrong_type":
		pick := []any{42, true, nil, []any{"a"}, map[string]any{"a": 1}, "six"}
		for {
			val := pick[g.rng.IntN(len(pick))]
			_, isStr := val.(string)
			_, isBool := val.(bool)
			_, isInt := val.(int)
			_, isArray := val.([]any)
			t := p.TypeName()
			if (t == "string" && isStr) || (t == "boolean" && isBool) || ((t == "integer" || t == "number") && isInt) || (t == "array" && isArray) {
				continue
			}
			v.Value = val
			return v
		}
	case "not_integer":
		lo, hi := 0.0, 10.0
		if p.Minimum != nil {
			lo = *p.Minimum
		}
		if p.Maximum != nil {
			hi = *p.Maximum
		}
		v.Value = lo + float64(g.rng.IntN(int(hi-lo)+0)) + []float64{0.5, 0.25, 0.001, 0.999}[g.rng.IntN(4)]
		if v.Value.(float64) >= hi {
			v.Value = lo + 0.5
		}
	case "too_small":
		v.Value = *p.Minimum - float64(1+g.rng.IntN(50))
	case "too_big":
		v.Value = *p.Maximum + float64(1+g.rng.IntN(50))
	}
	return v
}
