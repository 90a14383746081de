package validate

import (
	"bytes"
	"testing"

	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
)

// FuzzAlreadyNormal: whenever the byte-level check says arguments are valid
// and normal, the general check agrees and returns them as given.
func FuzzAlreadyNormal(f *testing.F) {
	for _, seed := range []string{
		`{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":false}`,
		` { "pickup" : "abc" , "dropoff":"déf" } `,
		`{"pickup":"ab","dropoff":"Glasgow Airport"}`,
		`{"pickup":"abc","dropoff":"def","vehicleType":"mpv","passengers":6,"meetAndGreet":true}`,
		`{"pickup":"abc","dropoff":"def","vehicleType":"wav","departAt":"2025-12-25T10:00:00Z"}`,
		`{"pickup":"abc","dropoff":"def","vehicleType":"limo"}`,
		`{"pickup":"abc","dropoff":"def","pickup":"ghi"}`,
		`{"pickup":"abc","dropoff":"def","extra":"x"}`,
		`{"pickup":"a\"bc","dropoff":"def"}`,
		`{"pickup":true,"dropoff":"def"}`, `{}`, `{"pickup":null}`, `[]`,
		`{"pickup":"abc","dropoff":"def","vehicleType":"mpv","meetAndGreet":true,"alternativeVehicleTypes":["saloon","wav"]}`,
		`{"pickup":"abc","dropoff":"def","vehicleType":"mpv","meetAndGreet":true,"alternativeVehicleTypes":["saloon","limo"]}`,
		`{"pickup":"abc","dropoff":"def","vehicleType":"mpv","meetAndGreet":true,"alternativeVehicleTypes":[]}`,
	} {
		f.Add([]byte(seed))
	}
	var schemas []*Schema
	for _, p := range []string{"schemas/estimate_fare.input.json", "schemas/start_booking.input.json", "schemas/get_service_info.input.json"} {
		b, err := tridentcontracts.Set.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		s, err := Compile(b)
		if err != nil {
			f.Fatal(err)
		}
		schemas = append(schemas, s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		args := bytes.TrimSpace(data)
		for i, s := range schemas {
			if !s.alreadyNormal(args) {
				continue
			}
			got, err := s.validateDecoded(data)
			if err != nil || !bytes.Equal(got, args) {
				t.Fatalf("schema %d: %s passes the byte-level check, but the general check gives %s, %v", i, data, got, err)
			}
		}
	})
}

// TestAlreadyNormalTakesTheCommonCall: the call that dominates traffic is
// answered without decoding, and what must be normalised or refused is not.
func TestAlreadyNormalTakesTheCommonCall(t *testing.T) {
	b, err := tridentcontracts.Set.ReadFile("schemas/estimate_fare.input.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Compile(b)
	if err != nil {
		t.Fatal(err)
	}
	for args, want := range map[string]bool{
		`{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":false}`: true,
		`{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport"}`:                                                false, // defaults to fill
		`{"pickup":"ab","dropoff":"Glasgow Airport"}`:                                                                         false, // too short: the general check words it
		`{"pickup":"abc","dropoff":"def","vehicleType":"limo"}`:                                                               false,
		`{"pickup":"abc","dropoff":"def","extra":"x"}`:                                                                        false, // dropped: not the normal form
		`{"pickup":"abc","dropoff":"def","pickup":"ghi"}`:                                                                     false,
		`{"pickup":"abc"}`: false,
		`{"pickup":"abc","dropoff":"def","vehicleType":"mpv","meetAndGreet":true,"alternativeVehicleTypes":["saloon","wav","saloon"]}`:                                     true,  // a class named twice is priced twice
		`{"pickup":"abc","dropoff":"def","vehicleType":"mpv","meetAndGreet":true,"alternativeVehicleTypes":[ ]}`:                                                           false, // minItems: the general check words it
		`{"pickup":"abc","dropoff":"def","vehicleType":"mpv","meetAndGreet":true,"alternativeVehicleTypes":["limo"]}`:                                                      false,
		`{"pickup":"abc","dropoff":"def","vehicleType":"mpv","meetAndGreet":true,"alternativeVehicleTypes":["wav","wav","wav","wav","wav","wav","wav","wav","wav","wav"]}`: false, // maxItems
		`{"pickup":"abc","dropoff":"def","vehicleType":"mpv","meetAndGreet":true,"alternativeVehicleTypes":["w\u0061v"]}`:                                                  false,
	} {
		if got := s.alreadyNormal([]byte(args)); got != want {
			t.Errorf("alreadyNormal(%s) = %v, want %v", args, got, want)
		}
	}
}
