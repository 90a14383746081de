package faultserver

import (
	"fmt"
)

// defaultTools answers the three Trident tools with the seed's sample
// values. start_booking refuses more passengers than a saloon seats, and
// estimate_fare refuses the pickup "xxx", with the seed's texts.
func defaultTools() map[string]toolFunc {
	return map[string]toolFunc{
		"estimate_fare": func(args map[string]any) (any, string, string) {
			if args["pickup"] == "xxx" {
				return nil, "", "Could not estimate fare — address could not be geocoded or the routing service is unavailable."
			}
			return map[string]any{
				"fareGBP": 62.4, "distanceMiles": 22, "durationSeconds": 1980, "rate": "day",
				"airportSurchargeGBP": 10, "tariffVersion": "argyll-2024-04",
				"appliedRules": []string{"Executive rate applied", "Airport pickup/drop fee +£10"},
			}, "£62.40 · 22 miles · 33 min · day tariff", ""
		},
		"get_service_info": func(map[string]any) (any, string, string) {
			return map[string]any{
				"brand": "Trident Taxis", "area": "Helensburgh, Lomond, Argyll & Bute (UK)",
				"vehicles":   []any{map[string]any{"id": "saloon", "maxPassengers": 4}, map[string]any{"id": "mpv", "maxPassengers": 7, "note": "8-seater; +100% on local hires"}},
				"surcharges": map[string]any{"preBookingGBP": 0.4, "airportPickupOrDropGBP": 10, "airportMeetAndGreetGBP": 25, "eightSeaterLocalMultiplier": 2},
				"tariffs":    []string{"T1 day", "T2 night/evening", "T3 Christmas & New Year"},
				"bookingUrl": "https://tridenttaxis.online",
			}, "Trident Taxis · Helensburgh, Lomond, Argyll & Bute (UK)", ""
		},
		"start_booking": func(args map[string]any) (any, string, string) {
			vt, _ := args["vehicleType"].(string)
			n, _ := args["passengers"].(float64)
			if vt == "saloon" && n > 4 {
				return nil, "", fmt.Sprintf("Vehicle 'saloon' seats up to 4 passengers, but %d were requested. Choose 'mpv' for groups over 4.", int(n))
			}
			url := "https://tridenttaxis.online/book?pickup=Helensburgh+Central+Station&dropoff=Glasgow+Airport&vehicleType=mpv&fare=118.00&distance=22&duration=1980&meetAndGreet=1"
			return map[string]any{
				"bookingUrl": url, "confirmed": false, "requiresPassengerAction": true,
				"quote":     map[string]any{"fareGBP": 118, "distanceMiles": 22, "durationSeconds": 1980, "rate": "day", "vehicleType": "mpv", "tariffVersion": "argyll-2024-04"},
				"prefilled": map[string]any{"pickup": args["pickup"], "dropoff": args["dropoff"], "vehicleType": vt, "departAt": nil, "meetAndGreet": args["meetAndGreet"] == true},
			}, "Booking session ready — fare £118.00 · 22 miles · 33 min.\n\n" + url, ""
		},
	}
}
