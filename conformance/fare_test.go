package conformance

import (
	"fmt"
	"maps"
	"math"
	"math/big"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The fare specs hold quotes to the contract's tariff: the band of a
// departure at each boundary of the tariff's windows, relations between
// quotes that hold whatever distance a server routes, and generated trips,
// each judged by the fare oracle (oracle.go). Against a server that prices
// with another tariff version every one of them is skipped, with the reason.

// The trips the fare specs send. The first is the seed's own.
const (
	home       = "Helensburgh Central Station"
	airport    = "Glasgow Airport"
	localDrop  = "Balloch"
	farDrop    = "Glasgow Central Station"
	airport2   = "Edinburgh Airport"
	localStart = "Rhu"
)

// bandYear is the year of the band specs' departures: next year, so that
// no server refuses them as past.
var bandYear = time.Now().Year() + 1

// serverTariff is the tariffVersion the server quoted with, probed once.
var serverTariff string

// requireOracleTariff skips a fare spec against a server that prices with
// another tariff: the oracle knows one tariff and refuses to judge others.
func requireOracleTariff() {
	if serverTariff == "" {
		a := quote("estimate_fare", map[string]any{"pickup": home, "dropoff": airport})
		serverTariff = a.TariffVersion
	}
	if serverTariff != tariff.Version {
		Skip(fmt.Sprintf("fare oracle: the server quotes with tariff %q; the oracle knows only %q (%s) and does not judge another tariff",
			serverTariff, tariff.Version, TariffSource))
	}
}

// quote calls tool with args, which must succeed and satisfy every check of
// a successful result (the oracle's included), and returns what it quoted.
func quote(tool string, args map[string]any) Answer {
	GinkgoHelper()
	ex, err := client().CallTool(suiteCtx, 31, tool, args, nil)
	Expect(err).NotTo(HaveOccurred())
	r := expectToolSuccess(tool, ex, 31)
	a, ok, err := AnswerOf(tool, r.StructuredContent)
	Expect(err).NotTo(HaveOccurred(), ex.String())
	Expect(ok).To(BeTrue(), "%s quotes no fare\n%s", tool, ex.String())
	return a
}

// estimate is quote for estimate_fare from pickup to dropoff with extra arguments.
func estimate(pickup, dropoff string, extra map[string]any) Answer {
	GinkgoHelper()
	args := map[string]any{"pickup": pickup, "dropoff": dropoff}
	maps.Copy(args, extra)
	return quote("estimate_fare", args)
}

func pence(gbp float64) int64 { return int64(math.Round(gbp * 100)) }

func utcString(at time.Time) string { return at.UTC().Format("2006-01-02T15:04:05Z") }

var _ = Describe("fare oracle", Label("fare"), func() {
	if tariff == nil {
		return // TestConformance fails on tarErr before any spec runs
	}
	BeforeEach(requireOracleTariff)

	Describe("bands at the tariff's own boundaries, in UK local time", func() {
		var entries []TableEntry
		for _, b := range bandBoundaries(tariff, bandYear) {
			before := b.At.Add(-time.Second)
			entries = append(entries,
				Entry(fmt.Sprintf("a second before %s: %s", b.What, utcString(before)), utcString(before)),
				Entry(fmt.Sprintf("at %s: %s", b.What, utcString(b.At)), utcString(b.At)))
		}
		DescribeTable("quote the band the tariff gives", checkBand, entries)

		// The same instants written with other offsets, and with fractions
		// of a second: the band follows the instant, not how it is written.
		var offsetEntries []TableEntry
		zones := []*time.Location{time.FixedZone("+01:00", 3600), time.FixedZone("-05:00", -5*3600),
			time.FixedZone("+05:30", 5*3600+1800), time.FixedZone("+00:00", 0)}
		for i, b := range bandBoundaries(tariff, bandYear) {
			if i%3 != 0 {
				continue
			}
			z := zones[(i/3)%len(zones)]
			before := b.At.Add(-time.Millisecond)
			offsetEntries = append(offsetEntries,
				Entry(fmt.Sprintf("a millisecond before %s, as %s", b.What, before.In(z).Format(time.RFC3339Nano)), before.In(z).Format("2006-01-02T15:04:05.000Z07:00")),
				Entry(fmt.Sprintf("at %s, as %s", b.What, b.At.In(z).Format(time.RFC3339)), b.At.In(z).Format(time.RFC3339)))
		}
		DescribeTable("read departAt with any offset", checkBand, offsetEntries)
	})

	Describe("relations that hold whatever the distance engine says", func() {
		It("the same trip with and without departAt in the same band differs by exactly the pre-booking fee", func() {
			for _, trip := range [][2]string{{home, airport}, {home, localDrop}} {
				without := estimate(trip[0], trip[1], map[string]any{"vehicleType": "mpv"})
				at, ok := instantIn(tariff, without.Rate, time.Date(bandYear, time.March, 10, 12, 0, 0, 0, time.UTC))
				Expect(ok).To(BeTrue(), "no departure in band %q", without.Rate)
				with := estimate(trip[0], trip[1], map[string]any{"vehicleType": "mpv", "departAt": utcString(at)})
				Expect(with.Rate).To(Equal(without.Rate), "%s→%s at %s: band", trip[0], trip[1], utcString(at))
				Expect(with.DistanceMiles).To(Equal(without.DistanceMiles), "%s→%s routed differently on two calls", trip[0], trip[1])
				Expect(pence(with.FareGBP)-pence(without.FareGBP)).To(Equal(tariff.PreBooking.Pence),
					"%s→%s: £%.2f with departAt, £%.2f without", trip[0], trip[1], with.FareGBP, without.FareGBP)
				Expect(with.AppliedRules).To(Equal(append(slices.Clone(without.AppliedRules), tariff.PreBooking.Rule)),
					"departAt adds exactly the pre-booking rule, last")
			}
		})

		It("meet & greet adds its fee on an airport trip and, as the tariff says, nothing elsewhere", func() {
			for _, trip := range [][2]string{{home, airport}, {airport, home}, {home, localDrop}} {
				off := estimate(trip[0], trip[1], map[string]any{"meetAndGreet": false})
				on := estimate(trip[0], trip[1], map[string]any{"meetAndGreet": true})
				Expect(on.Rate).To(Equal(off.Rate))
				kind, _ := KnownPlaces.TripKinds(tariff, trip[0], trip[1])
				isAirport := kind == Yes
				want, rules := tariff.MeetAndGreet.Pence, append(slices.Clone(off.AppliedRules), tariff.MeetAndGreet.Rule)
				if !isAirport && tariff.MeetAndGreetNeedsAirport {
					want, rules = 0, off.AppliedRules
				}
				Expect(pence(on.FareGBP)-pence(off.FareGBP)).To(Equal(want), "%s→%s: £%.2f with meet & greet, £%.2f without", trip[0], trip[1], on.FareGBP, off.FareGBP)
				Expect(on.AppliedRules).To(Equal(rules), "%s→%s", trip[0], trip[1])
			}
		})

		It("every vehicle's fare follows the tariff's rate mapping on one meter reading", func() {
			bases, mults := map[string]int64{}, map[string]*big.Rat{}
			var rate string
			for _, v := range con.Tools["estimate_fare"].Input.Properties["vehicleType"].Enum {
				id := v.(string)
				a := estimate(home, airport, map[string]any{"vehicleType": id})
				if rate == "" {
					rate = a.Rate
				}
				Expect(a.Rate).To(Equal(rate), "the vehicles were quoted in different bands")
				bases[id] = pence(a.FareGBP) - pence(*a.AirportSurchargeGBP)
				mults[id] = tariff.Vehicles[id].Multiplier
				if r := tariff.Vehicles[id].Rule; r != "" {
					Expect(a.AppliedRules).To(ContainElement(r), "%s must name its rate", id)
				}
			}
			expectOneMeter(bases, mults, "Helensburgh Central Station → Glasgow Airport")
			for a, ma := range mults {
				for b, mb := range mults {
					if ma.Cmp(mb) == 0 {
						Expect(bases[a]).To(Equal(bases[b]), "%s and %s share a rate (×%s) but were quoted differently", a, b, ma.RatString())
					}
				}
			}
		})

		It("the 8-seater local-hire rule applies to local trips only", func() {
			// Two local trips and two that are not, by the tariff's radius.
			for _, trip := range []struct{ from, to string }{{home, localDrop}, {localStart, localDrop}, {home, farDrop}, {home, airport}} {
				_, kind := KnownPlaces.TripKinds(tariff, trip.from, trip.to)
				Expect(kind).NotTo(Equal(Unknown), "the oracle cannot tell whether %s → %s is local", trip.from, trip.to)
				local := kind == Yes
				saloon := estimate(trip.from, trip.to, map[string]any{"vehicleType": "saloon"})
				mpv := estimate(trip.from, trip.to, map[string]any{"vehicleType": "mpv"})
				mult, rule, notRule := tariff.Vehicles["mpv"].Multiplier, tariff.Vehicles["mpv"].Rule, tariff.Local.Rule
				if local {
					mult, rule, notRule = tariff.Local.Multiplier, tariff.Local.Rule, tariff.Vehicles["mpv"].Rule
				}
				what := fmt.Sprintf("%s → %s (local: %v)", trip.from, trip.to, local)
				expectOneMeter(map[string]int64{
					"saloon": pence(saloon.FareGBP) - pence(*saloon.AirportSurchargeGBP),
					"mpv":    pence(mpv.FareGBP) - pence(*mpv.AirportSurchargeGBP),
				}, map[string]*big.Rat{"saloon": tariff.Vehicles["saloon"].Multiplier, "mpv": mult}, what)
				Expect(mpv.AppliedRules).To(ContainElement(rule), what)
				Expect(mpv.AppliedRules).NotTo(ContainElement(notRule), what)
			}
		})

		It("swapping pickup and dropoff keeps the airport fee", func() {
			for _, trip := range [][2]string{{home, airport}, {localDrop, airport2}, {home, localDrop}} {
				there := estimate(trip[0], trip[1], nil)
				back := estimate(trip[1], trip[0], nil)
				Expect(*back.AirportSurchargeGBP).To(Equal(*there.AirportSurchargeGBP), "%s ⇄ %s", trip[0], trip[1])
				want := int64(0)
				if kind, _ := KnownPlaces.TripKinds(tariff, trip[0], trip[1]); kind == Yes {
					want = tariff.Airport.Pence
				}
				Expect(pence(*there.AirportSurchargeGBP)).To(Equal(want), "%s → %s", trip[0], trip[1])
				Expect(slices.Contains(there.AppliedRules, tariff.Airport.Rule)).To(Equal(slices.Contains(back.AppliedRules, tariff.Airport.Rule)), "%s ⇄ %s", trip[0], trip[1])
			}
		})

		It("get_service_info's surcharges are the ones the quotes apply", func() {
			ex, err := client().CallTool(suiteCtx, 32, "get_service_info", map[string]any{}, nil)
			Expect(err).NotTo(HaveOccurred())
			r := expectToolSuccess("get_service_info", ex, 32)
			var info struct {
				Surcharges struct {
					PreBookingGBP              float64 `json:"preBookingGBP"`
					AirportPickupOrDropGBP     float64 `json:"airportPickupOrDropGBP"`
					AirportMeetAndGreetGBP     float64 `json:"airportMeetAndGreetGBP"`
					EightSeaterLocalMultiplier float64 `json:"eightSeaterLocalMultiplier"`
				} `json:"surcharges"`
			}
			Expect(jsonUnmarshal(r.StructuredContent, &info)).To(Succeed())
			s := info.Surcharges

			plain := estimate(home, airport, nil)
			booked := estimate(home, airport, map[string]any{"departAt": utcString(mustInstant(plain.Rate))})
			greeted := estimate(home, airport, map[string]any{"meetAndGreet": true})
			Expect(pence(booked.FareGBP)-pence(plain.FareGBP)).To(Equal(pence(s.PreBookingGBP)), "preBookingGBP")
			Expect(pence(*plain.AirportSurchargeGBP)).To(Equal(pence(s.AirportPickupOrDropGBP)), "airportPickupOrDropGBP")
			Expect(pence(greeted.FareGBP)-pence(plain.FareGBP)).To(Equal(pence(s.AirportMeetAndGreetGBP)), "airportMeetAndGreetGBP")

			saloon := estimate(home, localDrop, map[string]any{"vehicleType": "saloon"})
			mpv := estimate(home, localDrop, map[string]any{"vehicleType": "mpv"})
			m, ok := new(big.Rat).SetString(fmt.Sprint(s.EightSeaterLocalMultiplier))
			Expect(ok).To(BeTrue())
			expectOneMeter(map[string]int64{"saloon": pence(saloon.FareGBP), "mpv": pence(mpv.FareGBP)},
				map[string]*big.Rat{"saloon": tariff.Vehicles["saloon"].Multiplier, "mpv": m}, "eightSeaterLocalMultiplier on a local hire")

			// And they are the tariff's.
			Expect(pence(s.PreBookingGBP)).To(Equal(tariff.PreBooking.Pence), "preBookingGBP against %s", TariffSource)
			Expect(pence(s.AirportPickupOrDropGBP)).To(Equal(tariff.Airport.Pence), "airportPickupOrDropGBP against %s", TariffSource)
			Expect(pence(s.AirportMeetAndGreetGBP)).To(Equal(tariff.MeetAndGreet.Pence), "airportMeetAndGreetGBP against %s", TariffSource)
			Expect(m.Cmp(tariff.Local.Multiplier)).To(Equal(0), "eightSeaterLocalMultiplier against %s", TariffSource)
		})

		It("get_service_info reports the tariff's operator, listed vehicles and bands", func() {
			ex, err := client().CallTool(suiteCtx, 33, "get_service_info", map[string]any{}, nil)
			Expect(err).NotTo(HaveOccurred())
			r := expectToolSuccess("get_service_info", ex, 33)
			var info struct {
				Brand    string `json:"brand"`
				Area     string `json:"area"`
				Vehicles []struct {
					ID            string `json:"id"`
					MaxPassengers int    `json:"maxPassengers"`
					Note          string `json:"note"`
				} `json:"vehicles"`
				Tariffs []string `json:"tariffs"`
			}
			Expect(jsonUnmarshal(r.StructuredContent, &info)).To(Succeed())
			Expect(info.Brand).To(Equal(tariff.Brand), "brand against %s", TariffSource)
			Expect(info.Area).To(Equal(tariff.Area), "area against %s", TariffSource)
			var want, got []string
			for _, id := range tariff.VehicleOrder {
				if v := tariff.Vehicles[id]; v.Listed {
					want = append(want, fmt.Sprintf("%s seats %d, note %q", v.ID, v.Capacity, v.Note))
				}
			}
			for _, v := range info.Vehicles {
				got = append(got, fmt.Sprintf("%s seats %d, note %q", v.ID, v.MaxPassengers, v.Note))
			}
			Expect(got).To(Equal(want), "the vehicles the tariff lists, in its order (%s)", TariffSource)
			var bands []string
			for _, b := range tariff.Bands {
				bands = append(bands, b.Label)
			}
			Expect(info.Tariffs).To(Equal(bands), "the tariff's bands (%s)", TariffSource)
		})
	})

	Describe("generated trips", Label("generated"), func() {
		for _, tool := range []string{"estimate_fare", "start_booking"} {
			It(tool+": departures across a year, vehicles and passengers, priced as the tariff says", func() {
				gen := NewGenerator(propertySeed, tool+"/fare")
				in := con.Tools[tool].Input
				signals := con.ToolErrorSignals()
				judged := 0
				for i := 0; i < cfg.PropertyCases; i++ {
					args := gen.Trip(in, tariff, KnownPlaces.Names(), bandYear)
					where := reproduce(tool, "fare", i, args)
					Expect(Validate(con.Tools[tool].InputSchema, mustJSON(args))).To(Succeed(), "generator bug: "+where)
					ex, err := client().CallTool(suiteCtx, i+900, tool, args, nil)
					Expect(err).NotTo(HaveOccurred(), where)
					m, err := ex.Only()
					Expect(err).NotTo(HaveOccurred(), "%s\n%s", where, ex.String())
					Expect(m.Error).To(BeNil(), "valid arguments drew a protocol error\n%s\n%s", where, ex.String())
					r, err := DecodeResult(m.Result)
					Expect(err).NotTo(HaveOccurred(), "%s\n%s", where, ex.String())
					if r.IsError {
						// A server may not know every place of the table; it
						// must still refuse in the catalogue's terms.
						Expect(slices.ContainsFunc(slices.Collect(maps.Values(signals)), func(s string) bool { return strings.Contains(r.Text(), s) })).
							To(BeTrue(), "a tool error whose text carries no catalogue signal\n%s\n%s", where, ex.String())
						continue
					}
					Expect(structuredProblems(tool, args, r)).To(BeEmpty(), "%s\n%s", where, ex.String())
					judged++
				}
				if cfg.PropertyCases > 0 {
					Expect(judged).To(BeNumerically(">", 0), "no generated %s trip was quoted, so none was judged", tool)
				}
			})
		}
	})
})

// checkBand quotes a saloon (estimate_fare) and a group of five in the
// 8-seater (start_booking, whose group moves a band up) at departAt, and
// expects the band and fares the tariff gives.
func checkBand(departAt string) {
	at, err := time.Parse(time.RFC3339Nano, departAt)
	Expect(err).NotTo(HaveOccurred())
	want := tariff.BandAt(at)
	local := at.In(tariff.Zone).Format("Mon 2 Jan 2006 15:04:05 MST")
	a := quote("estimate_fare", map[string]any{"pickup": home, "dropoff": airport, "vehicleType": "saloon", "departAt": departAt})
	Expect(a.Rate).To(Equal(want), "departAt %s is %s in %s: the tariff gives the %s band", departAt, local, tariff.Zone, want)
	b := quote("start_booking", map[string]any{"pickup": home, "dropoff": airport, "vehicleType": "mpv", "passengers": 5, "departAt": departAt})
	Expect(b.Rate).To(Equal(want), "start_booking: departAt %s is %s: the tariff gives the %s band", departAt, local, want)
}

// mustInstant returns a departure the tariff prices in band.
func mustInstant(band string) time.Time {
	GinkgoHelper()
	at, ok := instantIn(tariff, band, time.Date(bandYear, time.March, 10, 12, 0, 0, 0, time.UTC))
	Expect(ok).To(BeTrue(), "no departure in band %q", band)
	return at
}

// expectOneMeter checks that a single meter reading M explains every base
// fare (the fare without fixed surcharges): base = M × multiplier, rounded
// up to the tariff's step. It needs no distance, so it holds whatever the
// server routed.
func expectOneMeter(bases map[string]int64, mults map[string]*big.Rat, what string) {
	GinkgoHelper()
	var lo, hi *big.Rat // M in (lo, hi]
	step := big.NewRat(tariff.StepPence, 1)
	for _, id := range slices.Sorted(maps.Keys(bases)) {
		b := big.NewRat(bases[id], 1)
		l := new(big.Rat).Quo(new(big.Rat).Sub(b, step), mults[id])
		h := new(big.Rat).Quo(b, mults[id])
		if lo == nil || l.Cmp(lo) > 0 {
			lo = l
		}
		if hi == nil || h.Cmp(hi) < 0 {
			hi = h
		}
	}
	var parts []string
	for _, id := range slices.Sorted(maps.Keys(bases)) {
		parts = append(parts, fmt.Sprintf("%s %s (×%s)", id, pounds(bases[id]), mults[id].RatString()))
	}
	Expect(lo.Cmp(hi) < 0).To(BeTrue(), "%s: no one meter reading gives %s, as the tariff's rate mapping requires (the readings they imply do not overlap)",
		what, strings.Join(parts, ", "))
}
