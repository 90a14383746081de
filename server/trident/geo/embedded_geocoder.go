package geo

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// serviceCentre is where Trident Taxis operates from (Helensburgh Central).
// Ambiguous names prefer the place within serviceRadiusMeters of it: "Cove"
// is the village on Rosneath peninsula, not the one in Hampshire.
var serviceCentre = Place{Lat: 56.00416, Lon: -4.73253}

const (
	serviceRadiusMeters = 100_000
	// maxQueryBytes bounds the work one query can cause. The tools accept at
	// most 200 characters, so anything longer is not an address.
	maxQueryBytes = 1000
)

// class orders the kinds of match: a named place beats a full postcode, which
// beats a postcode district, which beats a town, which beats a postcode
// area's post town. This is the "most specific known component" rule for
// "Street, Town, Postcode" addresses.
type class int8

const (
	classNone class = iota
	classArea
	classTown
	classDistrict
	classPostcode
	classPOI
)

func classOf(k Kind) class {
	switch k {
	case KindTown:
		return classTown
	case KindPostcode:
		return classDistrict
	default:
		return classPOI
	}
}

// alias is one index entry: a place known by a key, with a rank (0 a name
// people use for it, 1 a derived variant, 2 a weak form such as a station's
// name without "Station", which loses to any stronger entry with the same key).
type alias struct {
	place int32
	rank  uint8
}

// EmbeddedGeocoder resolves queries against the gazetteer embedded in the
// package. It is immutable after construction and safe for concurrent use.
type EmbeddedGeocoder struct {
	places     []Place
	population []int32  // GeoNames population (towns only; 0 when unknown)
	regionKey  []string // normalised council area, for "Balloch, Highland"
	curated    []bool

	index       map[string][]alias
	maxKeyWords int
	iata        map[string]int32 // "gla" -> airport
	postcodes   map[string]int32 // "g84 7hl" -> place with that postcode
	districts   map[string]int32 // "g84" -> district centroid
	areas       map[string]int32 // "g" -> post town
	nonUK       map[string]bool
	foreignPop  map[string]int // normalised name -> population of the largest foreign city so named
	placeholder map[string]bool
}

var _ Geocoder = (*EmbeddedGeocoder)(nil)

var loadEmbedded = sync.OnceValues(buildEmbedded)

// NewEmbeddedGeocoder returns the geocoder over the embedded gazetteer. The
// data is parsed and indexed once per process (a few milliseconds); later
// calls share it. An error means the embedded data is broken, a build defect.
func NewEmbeddedGeocoder() (*EmbeddedGeocoder, error) { return loadEmbedded() }

// Len reports how many places the gazetteer holds.
func (g *EmbeddedGeocoder) Len() int { return len(g.places) }

// Geocode resolves query to a place. It understands coordinate pairs
// ("56.0036,-4.7346", resolved to exactly that point; see [KindPoint]),
// place names ("Glasgow Airport", "Helensburgh Central Station"), IATA codes
// written in capitals ("GLA"), postcodes ("G84 7HL", "PA3 2SW", "G84"), towns,
// and "Street, Town, Postcode" addresses, of which it uses the most specific
// part it knows. It
// refuses with [ErrNoMatch], rather than guessing, text it cannot place in
// the UK: junk, placeholders ("123 Main St", "TBD"), foreign places
// ("Paris, France", "Berlin"). Apart from an already-cancelled ctx, which
// gives [ErrUnavailable], the answer depends only on query.
func (g *EmbeddedGeocoder) Geocode(ctx context.Context, query string) (Place, error) {
	if err := ctx.Err(); err != nil {
		return Place{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if p, ok, err := coordinatePlace(query); ok {
		return p, err
	}
	return g.resolve(query)
}

func noMatch(query, why string) error {
	if len(query) > 80 {
		query = query[:80] + "..."
	}
	return fmt.Errorf("%w: %q: %s", ErrNoMatch, query, why)
}

// part is a run of tokens [from, to) to match names in: a segment of the
// address with postcodes and trailing UK context words taken out.
type part struct{ from, to int }

// candidate is one way to read the query; the best one wins.
type candidate struct {
	place Place
	idx   int32 // index in g.places, -1 for postcode-built places
	class class
	span  int // words matched
	part  int
	start int
	key   string
	whole bool // the match is the whole part
}

func (c candidate) better(o candidate) bool {
	if c.class != o.class {
		return c.class > o.class
	}
	if c.span != o.span {
		return c.span > o.span
	}
	if c.part != o.part {
		return c.part < o.part
	}
	return c.start < o.start
}

func (g *EmbeddedGeocoder) resolve(query string) (Place, error) {
	if len(query) > maxQueryBytes {
		return Place{}, noMatch(query, "too long to be an address")
	}
	p := parse(query)
	if len(p.toks) == 0 {
		return Place{}, noMatch(query, "no words")
	}
	if g.placeholder[p.norm] {
		return Place{}, noMatch(query, "placeholder, not an address")
	}

	var partsBuf [16]part
	parts, pc, saysUK := g.split(&p, partsBuf[:0])
	if g.foreignParts(&p, parts) {
		return Place{}, noMatch(query, "outside the UK")
	}

	best := candidate{class: classNone}
	consider := func(c candidate) {
		if best.class == classNone || c.better(best) {
			best = c
		}
	}
	if c, ok := g.postcodeCandidate(pc); ok {
		consider(c)
	}
	for k, pt := range parts {
		// IATA codes: in capitals ("GLA", "(MAN)"), or in any case when the
		// whole query is the code of a curated airport ("gla"); "man" alone
		// is too likely a word to be Manchester Airport.
		if pt.to-pt.from == 1 {
			i, ok := g.iata[p.tok(pt.from)]
			if ok && (p.upperSeg[p.toks[pt.from].seg] || len(p.toks) == 1 && g.curated[i]) {
				consider(candidate{place: g.places[i], idx: i, class: classPOI, span: 1, part: k, start: pt.from, whole: true})
			}
		}
		for s := pt.from; s < pt.to; s++ {
			for e := min(pt.to, s+g.maxKeyWords); e > s; e-- {
				key := p.text(s, e)
				al, ok := g.index[key]
				if !ok {
					continue
				}
				i := g.pick(al, &p)
				c := candidate{place: g.places[i], idx: i, class: classOf(g.places[i].Kind), span: e - s, part: k, start: s, key: key, whole: s == pt.from && e == pt.to}
				if c.class == classTown && !g.townAccepted(&p, pt, s, e) {
					continue
				}
				consider(c)
				break
			}
		}
	}
	if best.class == classNone {
		return Place{}, noMatch(query, "no known place, postcode or town")
	}
	// A bare "Melbourne" means Australia, not the Derbyshire village of 4,000;
	// "Melbourne, Derbyshire" or "Melbourne, UK" means the village.
	if best.class == classTown && best.whole && len(parts) == 1 && pc.outward == "" && !saysUK {
		if fp := g.foreignPop[best.key]; fp > 0 && int(g.population[best.idx])*100 < fp &&
			DistanceMeters(best.place, serviceCentre) > serviceRadiusMeters {
			return Place{}, noMatch(query, "names a foreign city")
		}
	}
	return best.place, nil
}

// postcode is the first postcode found in a query.
type postcode struct{ outward, inward string }

// split cuts the query into parts: its segments, with postcode tokens taken
// out (they also end a part, so "Paisley PA3 2SW" leaves "paisley") and
// trailing UK context ("..., Scotland", "UK") dropped, reporting whether
// there was any.
func (g *EmbeddedGeocoder) split(p *parsed, parts []part) ([]part, postcode, bool) {
	var pc postcode
	saysUK := false
	n := len(p.toks)
	addPart := func(from, to int) {
		for to > from {
			w := p.tok(to - 1)
			if ukContextWord(w) {
				to--
				saysUK = true
				continue
			}
			if to-from >= 2 && ukContextPair(p.tok(to-2), w) {
				to -= 2
				saysUK = true
				continue
			}
			break
		}
		if to > from {
			parts = append(parts, part{from, to})
		}
	}
	for a := 0; a < n; {
		b := a
		for b < n && p.toks[b].seg == p.toks[a].seg {
			b++
		}
		start := a
		for j := a; j < b; j++ {
			w := p.tok(j)
			used := 0
			if area, ok := splitOutward(w); ok && g.hasArea(area) {
				switch {
				case j+1 < b && isInward(p.tok(j+1)):
					if pc.outward == "" {
						pc = postcode{w, p.tok(j + 1)}
					}
					used = 2
				case g.hasDistrict(w):
					if pc.outward == "" {
						pc = postcode{w, ""}
					}
					used = 1
				}
			} else if l := len(w); l >= 5 && l <= 7 && isInward(w[l-3:]) {
				if area, ok := splitOutward(w[:l-3]); ok && g.hasArea(area) {
					if pc.outward == "" {
						pc = postcode{w[:l-3], w[l-3:]}
					}
					used = 1
				}
			}
			if used > 0 {
				addPart(start, j)
				j += used - 1
				start = j + 1
			}
		}
		addPart(start, b)
		a = b
	}
	return parts, pc, saysUK
}

func (g *EmbeddedGeocoder) hasDistrict(w string) bool { _, ok := g.districts[w]; return ok }
func (g *EmbeddedGeocoder) hasArea(a string) bool     { _, ok := g.areas[a]; return ok }

func ukContextWord(w string) bool {
	switch w {
	case "uk", "scotland", "england", "wales", "gb", "britain":
		return true
	}
	return false
}

func ukContextPair(a, b string) bool {
	return a == "united" && b == "kingdom" || a == "great" && b == "britain" || a == "northern" && b == "ireland"
}

// postcodeCandidate resolves a postcode to, in order of preference, the
// place that has it, its district's centroid, or its area's post town.
func (g *EmbeddedGeocoder) postcodeCandidate(pc postcode) (candidate, bool) {
	if pc.outward == "" {
		return candidate{}, false
	}
	name := formatPostcode(pc.outward, pc.inward)
	if pc.inward != "" {
		if i, ok := g.postcodes[pc.outward+" "+pc.inward]; ok {
			pl := g.places[i]
			return candidate{place: Place{Name: name, Lat: pl.Lat, Lon: pl.Lon, Kind: KindPostcode, Postcode: name, Region: pl.Name}, idx: -1, class: classPostcode, span: 2}, true
		}
	}
	if i, ok := g.districts[pc.outward]; ok {
		d := g.places[i]
		return candidate{place: Place{Name: name, Lat: d.Lat, Lon: d.Lon, Kind: KindPostcode, Postcode: name, Region: d.Region}, idx: -1, class: classDistrict, span: 1}, true
	}
	area, _ := splitOutward(pc.outward)
	if i, ok := g.areas[area]; ok && pc.inward != "" {
		t := g.places[i]
		return candidate{place: Place{Name: name, Lat: t.Lat, Lon: t.Lon, Kind: KindPostcode, Postcode: name, Region: t.Name}, idx: -1, class: classArea, span: 1}, true
	}
	return candidate{}, false
}

// addressWords are words that name a kind of street as well as a handful of
// villages ("Street" in Somerset). A town of one such word matches only as a
// whole part, so "123 Main Street" is not Street.
var addressWords = map[string]bool{
	"street": true, "st": true, "road": true, "rd": true, "lane": true, "avenue": true, "drive": true,
	"close": true, "way": true, "place": true, "crescent": true, "terrace": true, "court": true,
	"gardens": true, "square": true, "park": true, "hill": true, "green": true, "bridge": true,
	"cross": true, "row": true, "walk": true, "view": true, "grove": true, "mount": true, "rise": true,
	"wharf": true, "quay": true, "main": true, "high": true, "north": true, "south": true, "east": true,
	"west": true, "upper": true, "lower": true, "new": true, "old": true, "station": true,
	"church": true, "mill": true, "bank": true, "field": true, "wood": true, "gate": true, "end": true,
	"side": true, "town": true, "city": true, "centre": true, "village": true, "house": true,
}

// localityWords may follow a town name in its part: "Glasgow City Centre".
var localityWords = map[string]bool{"city": true, "centre": true, "town": true, "village": true, "area": true}

// townAccepted says whether a town name found at tokens [s, e) of part pt is
// the town the address means: it must be the whole part, or end it ("12
// Sinclair Street Helensburgh"), or be followed only by locality words. A
// town that is a single street word must be the whole part.
func (g *EmbeddedGeocoder) townAccepted(p *parsed, pt part, s, e int) bool {
	if s == pt.from && e == pt.to {
		return true
	}
	if e-s == 1 && addressWords[p.tok(s)] {
		return false
	}
	if e == pt.to {
		return true
	}
	for j := e; j < pt.to; j++ {
		if !localityWords[p.tok(j)] {
			return false
		}
	}
	return true
}

// pick chooses among the places sharing a key: the best rank, then one whose
// council area the query names, then the index order (service area first,
// then the most populous).
func (g *EmbeddedGeocoder) pick(al []alias, p *parsed) int32 {
	if len(al) == 1 || al[1].rank != al[0].rank {
		return al[0].place
	}
	for _, a := range al {
		if a.rank != al[0].rank {
			break
		}
		if r := g.regionKey[a.place]; r != "" && containsWords(p.norm, r) {
			return a.place
		}
	}
	return al[0].place
}

// containsWords reports whether words occurs in s on word boundaries.
func containsWords(s, words string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], words)
		if i < 0 {
			return false
		}
		i += off
		j := i + len(words)
		if (i == 0 || s[i-1] == ' ') && (j == len(s) || s[j] == ' ') {
			return true
		}
		off = i + 1
	}
}

// placeholders are whole queries that are obviously not addresses. Other
// junk ("xxx", "asdf") fails on its own because it names nothing known.
var placeholders = []string{
	"123 main st", "123 main street", "1 main st", "1 main street", "main st", "main street",
	"123 fake street", "123 fake st", "123 street", "123 any street", "1 example street", "123 example street",
	"your address", "my address", "address", "the address", "enter address", "enter an address", "address here",
	"your pickup address", "your dropoff address", "pickup address", "dropoff address", "destination",
	"pickup", "dropoff", "pick up", "drop off", "pickup location", "dropoff location", "location",
	"tbd", "tba", "tbc", "n a", "na", "none", "null", "nil", "undefined", "unknown", "nan",
	"test", "testing", "test address", "xxx", "xx", "asdf", "qwerty", "foo", "bar", "foo bar", "foobar", "baz",
	"example", "placeholder", "lorem ipsum", "somewhere", "anywhere", "nowhere", "here", "there",
	"home", "my house", "my home", "work", "string", "text", "value", "sample",
}

func buildEmbedded() (*EmbeddedGeocoder, error) {
	g := &EmbeddedGeocoder{
		index:       map[string][]alias{},
		iata:        map[string]int32{},
		postcodes:   map[string]int32{},
		districts:   map[string]int32{},
		areas:       map[string]int32{},
		nonUK:       map[string]bool{},
		foreignPop:  map[string]int{},
		placeholder: map[string]bool{},
	}
	for _, s := range placeholders {
		g.placeholder[normalize(s)] = true
	}
	add := func(pl Place, pop int, region string, curated bool) int32 {
		g.places = append(g.places, pl)
		g.population = append(g.population, int32(pop))
		g.regionKey = append(g.regionKey, normalize(region))
		g.curated = append(g.curated, curated)
		return int32(len(g.places) - 1)
	}
	alias := func(name string, i int32, rank uint8) {
		key := normalize(name)
		if key == "" {
			return
		}
		for _, k := range []string{key, strings.TrimPrefix(key, "the ")} {
			list := g.index[k]
			dup := false
			for j := range list {
				if list[j].place == i {
					list[j].rank = min(list[j].rank, rank)
					dup = true
				}
			}
			if !dup {
				g.index[k] = append(list, alias{i, rank})
			}
		}
	}

	// Curated places first: their names and positions win.
	rows, err := readTable("places.csv")
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		lat, lon, err := parseLatLon("places.csv", r)
		if err != nil {
			return nil, err
		}
		pl := Place{Name: r["name"], Lat: lat, Lon: lon, Kind: Kind(r["kind"]), IATA: r["iata"], Postcode: r["postcode"]}
		switch pl.Kind {
		case KindAirport, KindStation, KindFerry, KindHospital, KindLandmark, KindTown:
		default:
			return nil, fmt.Errorf("geo: places.csv: %s: unknown kind %q", pl.Name, pl.Kind)
		}
		i := add(pl, 0, "", true)
		alias(pl.Name, i, 0)
		for _, a := range strings.Split(r["aliases"], "|") {
			alias(a, i, 0)
		}
		derivedAliases(pl, i, alias)
		if pl.IATA != "" {
			g.iata[strings.ToLower(pl.IATA)] = i
		}
		if pl.Postcode != "" {
			if _, dup := g.postcodes[normalize(pl.Postcode)]; !dup {
				g.postcodes[normalize(pl.Postcode)] = i
			}
		}
	}

	// OpenFlights airports: new ones, or more names for curated ones.
	rows, err = readTable("airports.csv")
	if err != nil {
		return nil, err
	}
	cityAirports := map[string]int{}
	for _, r := range rows {
		cityAirports[normalize(r["city"])]++
	}
	for _, r := range rows {
		lat, lon, err := parseLatLon("airports.csv", r)
		if err != nil {
			return nil, err
		}
		code := strings.ToLower(r["iata"])
		i, ok := g.iata[code]
		if !ok {
			i = add(Place{Name: r["name"], Lat: lat, Lon: lon, Kind: KindAirport, IATA: r["iata"]}, 0, "", false)
			g.iata[code] = i
		}
		name := r["name"]
		alias(name, i, 1)
		alias(strings.Replace(name, " International", "", 1), i, 1)
		if cityAirports[normalize(r["city"])] == 1 {
			alias(r["city"]+" Airport", i, 1)
		}
		// "London Heathrow Airport" -> "Heathrow Airport", and "Heathrow" as a weak name.
		rest := strings.TrimSpace(strings.TrimPrefix(name, r["city"]))
		rest = strings.TrimSpace(strings.TrimSuffix(strings.Replace(rest, "International ", "", 1), "Airport"))
		if at := strings.Index(name, r["city"]); at > 0 && r["city"] != "" {
			alias(name[at:], i, 1) // "George Best Belfast City Airport" -> "Belfast City Airport"
		}
		if rest != "" && rest != name && !genericAirportWord[rest] {
			alias(rest+" Airport", i, 1)
			if len(rest) >= 5 && !strings.Contains(rest, " ") {
				alias(rest, i, 2)
			}
		}
	}

	// GeoNames towns.
	rows, err = readTable("towns.csv")
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		lat, lon, err := parseLatLon("towns.csv", r)
		if err != nil {
			return nil, err
		}
		pop, _ := strconv.Atoi(r["population"])
		key := normalize(r["name"])
		if g.curatedNear(key, lat, lon) {
			continue
		}
		region := r["region"]
		council, _, _ := strings.Cut(region, ",")
		i := add(Place{Name: r["name"], Lat: lat, Lon: lon, Kind: KindTown, Region: region}, pop, council, false)
		alias(r["name"], i, 0)
	}

	// Postcode districts and areas.
	rows, err = readTable("postcode_districts.csv")
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		lat, lon, err := parseLatLon("postcode_districts.csv", r)
		if err != nil {
			return nil, err
		}
		d := strings.ToUpper(r["district"])
		g.districts[strings.ToLower(d)] = add(Place{Name: d, Lat: lat, Lon: lon, Kind: KindPostcode, Postcode: d, Region: r["label"]}, 0, "", true)
	}
	rows, err = readTable("postcode_areas.csv")
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		al := g.index[normalize(r["posttown"])]
		best := int32(-1)
		for _, a := range al {
			if g.places[a.place].Kind == KindTown && (best < 0 || g.population[a.place] > g.population[best]) {
				best = a.place
			}
		}
		if best < 0 {
			return nil, fmt.Errorf("geo: postcode_areas.csv: post town %q of %s is not in towns.csv", r["posttown"], r["area"])
		}
		g.areas[strings.ToLower(r["area"])] = best
	}
	for d := range g.districts {
		if area, ok := splitOutward(d); !ok || !g.hasArea(area) {
			return nil, fmt.Errorf("geo: postcode district %q is not in a known area", d)
		}
	}

	// Refusal lists.
	lines, err := readLines("non_uk.txt")
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		g.nonUK[normalize(l)] = true
	}
	rows, err = readTable("foreign_cities.csv")
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		pop, _ := strconv.Atoi(r["population"])
		k := normalize(r["name"])
		g.foreignPop[k] = max(g.foreignPop[k], pop)
	}

	g.sortIndex()
	return g, nil
}

// genericAirportWord are what is left of names like "London City Airport"
// once the city is removed: not a name on their own.
var genericAirportWord = map[string]bool{"City": true, "International": true, "Regional": true, "Airport": true}

// derivedAliases adds the usual ways of writing a curated place's name:
// "Balloch Station" is also "Balloch Railway Station" and, weakly, "Balloch".
func derivedAliases(pl Place, i int32, alias func(string, int32, uint8)) {
	for _, suffix := range []string{" Station", " Ferry Terminal", " Airport"} {
		base, ok := strings.CutSuffix(pl.Name, suffix)
		if !ok {
			continue
		}
		switch suffix {
		case " Station":
			if !strings.Contains(base, "Bus") {
				for _, v := range []string{" Railway Station", " Rail Station", " Train Station"} {
					alias(base+v, i, 1)
				}
			}
		case " Ferry Terminal":
			alias(base+" Ferry", i, 1)
			alias(base+" Terminal", i, 1)
		}
		alias(base, i, 2)
	}
}

// curatedNear reports whether a curated town with this key lies within 2 km,
// in which case a GeoNames duplicate is dropped.
func (g *EmbeddedGeocoder) curatedNear(key string, lat, lon float64) bool {
	for _, a := range g.index[key] {
		if g.curated[a.place] && g.places[a.place].Kind == KindTown && haversine(lat, lon, g.places[a.place].Lat, g.places[a.place].Lon) < 2000 {
			return true
		}
	}
	return false
}

// sortIndex orders each key's entries: stronger rank first, then places in
// the service area (nearest first), then curated, then most populous, then
// by name and position so that the order never depends on map iteration.
func (g *EmbeddedGeocoder) sortIndex() {
	for k, list := range g.index {
		slices.SortStableFunc(list, func(a, b alias) int {
			if c := cmp.Compare(a.rank, b.rank); c != 0 {
				return c
			}
			pa, pb := g.places[a.place], g.places[b.place]
			da, db := DistanceMeters(pa, serviceCentre), DistanceMeters(pb, serviceCentre)
			ia, ib := da <= serviceRadiusMeters, db <= serviceRadiusMeters
			if ia != ib {
				if ia {
					return -1
				}
				return 1
			}
			if ia {
				return cmp.Compare(da, db)
			}
			if g.curated[a.place] != g.curated[b.place] {
				if g.curated[a.place] {
					return -1
				}
				return 1
			}
			if c := cmp.Compare(g.population[b.place], g.population[a.place]); c != 0 {
				return c
			}
			return cmp.Or(cmp.Compare(pa.Name, pb.Name), cmp.Compare(pa.Lat, pb.Lat), cmp.Compare(pa.Lon, pb.Lon))
		})
		if w := strings.Count(k, " ") + 1; w > g.maxKeyWords {
			g.maxKeyWords = w
		}
	}
}

// screen refuses, before any back end is asked, queries that no geocoder
// should resolve: empty, too long, placeholders, and explicitly foreign
// places. It is what the HTTP geocoder shares with the embedded one.
func screen(query string) error {
	g, err := loadEmbedded()
	if err != nil {
		return nil // a broken gazetteer must not stop the HTTP geocoder
	}
	if len(query) > maxQueryBytes {
		return noMatch(query, "too long to be an address")
	}
	p := parse(query)
	if len(p.toks) == 0 {
		return noMatch(query, "no words")
	}
	if g.placeholder[p.norm] {
		return noMatch(query, "placeholder, not an address")
	}
	var partsBuf [16]part
	parts, _, _ := g.split(&p, partsBuf[:0])
	if g.foreignParts(&p, parts) {
		return noMatch(query, "outside the UK")
	}
	return nil
}

// foreignParts reports whether any part ends with a non-UK name ("..., France",
// "Times Square New York").
func (g *EmbeddedGeocoder) foreignParts(p *parsed, parts []part) bool {
	for _, pt := range parts {
		for n := 1; n <= 3 && n <= pt.to-pt.from; n++ {
			if g.nonUK[p.text(pt.to-n, pt.to)] {
				return true
			}
		}
	}
	return false
}
