package signing_test

import (
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
)

// sixOptions are the options of one Trident search: six vehicle classes
// of one trip, as search_rides signs them.
func sixOptions() []mcptypes.RideOption {
	var out []mcptypes.RideOption
	for i, class := range []string{"saloon", "estate", "executive", "mpv", "minibus", "wheelchair"} {
		o := sampleOption()
		o.OptionID = "opt_0193a1b2c3d4e5f6a7b8c9d0e1f2a3b" + string(rune('0'+i))
		o.Product.ID, o.Product.Name = class, strings.ToUpper(class[:1])+class[1:]
		o.Price.AmountMinor += int64(i) * 450
		desc := "Executive rate applied; Airport pickup/drop fee +£10"
		o.ProviderText.Description = &desc
		out = append(out, o)
	}
	return out
}

// BenchmarkSignSixOptions signs the six options of one search.
func BenchmarkSignSixOptions(b *testing.B) {
	k := mustKeys(b, "k1:"+strings.Repeat("A", 43))
	opts := sixOptions()
	b.ReportAllocs()
	for b.Loop() {
		for i := range opts {
			if err := k.SignOption(binding, &opts[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkVerifySixOptions verifies them, as compare_rides does.
func BenchmarkVerifySixOptions(b *testing.B) {
	k := mustKeys(b, "k1:"+strings.Repeat("A", 43))
	opts := sixOptions()
	for i := range opts {
		if err := k.SignOption(binding, &opts[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, o := range opts {
			if err := k.VerifyOption(binding, o); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkSignContext signs one relay_context, as every call does.
func BenchmarkSignContext(b *testing.B) {
	k := mustKeys(b, "k1:"+strings.Repeat("A", 43))
	c := mcptypes.RelayContext{SessionID: "ses_0193a1b2c3d4e5f6a7b8c9d0e1f2a3b4", JourneyID: "jny_0193a1b2c3d4e5f6a7b8c9d0e1f2a3b4", IntentID: "int_0193a1b2c3d4e5f6a7b8c9d0e1f2a3b4", RequestID: "req_0193a1b2c3d4e5f6a7b8c9d0e1f2a3b4"}
	b.ReportAllocs()
	for b.Loop() {
		if err := k.SignContext("anonymous", &c); err != nil {
			b.Fatal(err)
		}
	}
}
