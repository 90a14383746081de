// Pricing by the contract's tariff file, written from contracts/trident/tariff/README.md
// for this independent server: exact fractions in BigInt, the band read from
// the wall clock with Intl (not a tz library), windows compared as "MM-DDTHH:MM"
// strings. It shares no code with the Go server or the conformance oracle.

/** A multiplier such as "0.99" or "4/3" as a fraction of BigInts. */
function fraction(s) {
  if (s.includes("/")) {
    const [n, d] = s.split("/");
    return { n: BigInt(n), d: BigInt(d) };
  }
  const [whole, dec = ""] = s.split(".");
  return { n: BigInt(whole + dec), d: 10n ** BigInt(dec.length) };
}

/** Half-open [from, to) on strings that sort as times do; to < from wraps. */
function within(key, from, to) {
  return from <= to ? from <= key && key < to : key >= from || key < to;
}

export class Tariff {
  constructor(doc) {
    this.doc = doc;
    this.version = doc.version;
    this.bands = doc.bands;
    this.vehicles = new Map(doc.vehicles.map((v) => [v.id, v]));
    this.clock = new Intl.DateTimeFormat("en-GB", {
      timeZone: doc.timeZone, hourCycle: "h23",
      month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit",
    });
  }

  /** The band id of a departure at the given Date, on the tariff's wall clock. */
  bandAt(date) {
    const p = Object.fromEntries(this.clock.formatToParts(date).map((x) => [x.type, x.value]));
    const hm = `${p.hour}:${p.minute}`;
    const dated = `${p.month}-${p.day}T${hm}`;
    for (const w of this.doc.schedule.special) if (within(dated, w.from, w.to)) return w.band;
    for (const w of this.doc.schedule.daily) if (within(hm, w.from, w.to)) return w.band;
    throw new Error(`no band holds at ${date.toISOString()}`);
  }

  /**
   * Prices a trip. miles are whole miles; airport and local say what the two
   * ends are; departAt is a Date or null (priced at now, no pre-booking fee).
   */
  price({ vehicle, miles, airport, local, meetAndGreet, passengers, departAt, now }) {
    const v = this.vehicles.get(vehicle);
    const at = departAt ?? now;
    const bandIndex = this.bands.findIndex((b) => b.id === this.bandAt(at));
    const band = this.bands[bandIndex];
    const rules = [];
    if (band.rule) rules.push(band.rule);
    let meterBand = band;
    let extra = 0n;
    const groups = this.doc.largeVehicleGroups;
    if (v.large && passengers != null && passengers >= groups.minPassengers) {
      if (bandIndex + 1 < this.bands.length) {
        meterBand = this.bands[bandIndex + 1];
        rules.push(meterBand.groupRule);
      } else {
        extra = BigInt(groups.topBandExtraPence);
        rules.push(groups.topBandExtraRule);
      }
    }
    const m = meterBand.meter;
    const beyond = BigInt(Math.max(0, miles * 1760 - m.flagYards));
    // meter = flag + beyond × unit ÷ unitYards, kept as num/den.
    let num = (BigInt(m.flagPence) + extra) * BigInt(m.unitYards) + beyond * BigInt(m.unitPence);
    let den = BigInt(m.unitYards);
    const localHire = this.doc.surcharges.eightSeaterLocal;
    const useLocal = v.localHire && local;
    const mult = fraction(useLocal ? localHire.multiplier : v.meterMultiplier);
    const rule = useLocal ? localHire.rule : v.rule;
    if (rule) rules.push(rule);
    num *= mult.n;
    den *= mult.d;
    const step = BigInt(this.doc.fixedPrice.rounding.stepPence);
    let pence = ((num + den * step - 1n) / (den * step)) * step;
    const s = this.doc.surcharges;
    let airportPence = 0n;
    if (airport) {
      airportPence = BigInt(s.airport.pence);
      pence += airportPence;
      rules.push(s.airport.rule);
    }
    if (meetAndGreet && (airport || !s.meetAndGreet.requiresAirport)) {
      pence += BigInt(s.meetAndGreet.pence);
      rules.push(s.meetAndGreet.rule);
    }
    if (departAt) {
      pence += BigInt(s.preBooking.pence);
      rules.push(s.preBooking.rule);
    }
    return { pence: Number(pence), airportPence: Number(airportPence), rate: band.id, rules };
  }
}
