// The independent server's own gazetteer and distance engine: a table of
// named places (public coordinates) and a road distance estimated as the
// great-circle distance times a detour factor, driven at an average speed.
// Deliberately not the Go server's router: the conformance suite must judge
// fares from whatever distance a server reports.

const PLACES = [
  ["Helensburgh Central Station", 56.00416, -4.73253],
  ["Helensburgh", 56.0036, -4.7339],
  ["G84 7HL", 56.0041, -4.7322],
  ["Rhu", 56.0147, -4.7826],
  ["Cardross", 55.9615, -4.6525],
  ["Garelochhead", 56.0828, -4.8283],
  ["Balloch", 56.0029, -4.5826],
  ["Alexandria", 55.9853, -4.5796],
  ["Dumbarton", 55.9434, -4.5706],
  ["Luss", 56.1008, -4.6379],
  ["Arrochar", 56.1966, -4.7296],
  ["Paisley", 55.8466, -4.4236],
  ["Glasgow", 55.8642, -4.2518],
  ["Glasgow Central Station", 55.8592, -4.2576],
  ["Glasgow Queen Street Station", 55.8623, -4.2507],
  ["Oban", 56.4152, -5.4714],
  ["Glasgow Airport", 55.8719, -4.4331, true],
  ["Edinburgh Airport", 55.9508, -3.3615, true],
  ["Prestwick Airport", 55.5094, -4.5867, true],
].map(([name, lat, lon, airport = false]) => ({ name, lat, lon, airport }));

const norm = (s) => s.toLowerCase().replace(/\s+/g, " ").trim();
const byName = new Map(PLACES.map((p) => [norm(p.name), p]));

/** The place a free-text address names, or null: a known name, alone or before a comma. */
export function geocode(address) {
  const a = norm(address);
  return byName.get(a) ?? byName.get(a.split(",")[0].trim()) ?? null;
}

export function greatCircleMiles(a, b) {
  const rad = Math.PI / 180;
  const dlat = (b.lat - a.lat) * rad;
  const dlon = (b.lon - a.lon) * rad;
  const h = Math.sin(dlat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dlon / 2) ** 2;
  return 2 * 3958.7613 * Math.asin(Math.sqrt(h));
}

const DETOUR = 1.49; // roads against the crow's flight, west of Scotland
const MPH = 40;

/** Road miles (whole, nearest) and seconds (whole minutes, nearest) between two places. */
export function route(a, b) {
  const miles = greatCircleMiles(a, b) * DETOUR;
  return { miles: Math.round(miles), seconds: Math.round((miles / MPH) * 60) * 60 };
}
