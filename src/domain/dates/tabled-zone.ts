import { Zone, type ZoneOffsetFormat, type ZoneOffsetOptions } from 'luxon';
import { offsetAt } from './zone-offsets.ts';

/**
 * A zone that answers its offsets from the table of them (zone-offsets.ts offsetAt: exactly the zone's own, asked of
 * Intl once per zone and year) instead of asking Intl at every call, which costs about 15 µs: luxon asks for one to
 * three offsets whenever it makes a DateTime in the zone (reading a wall-clock time, formatting, shifting), and an
 * event write or an imported unit makes a dozen. Everything else is the zone's own; `type` stays the zone's, so
 * luxon formats with Intl in the zone as it would (it reads `type === 'iana'`), and equality is the zone's.
 */
export class TabledZone extends Zone {
  readonly #zone: Zone;

  constructor(zone: Zone) {
    super();
    this.#zone = zone;
  }

  override get type() {
    return this.#zone.type;
  }

  override get name() {
    return this.#zone.name;
  }

  override get isUniversal() {
    return this.#zone.isUniversal;
  }

  override get isValid() {
    return this.#zone.isValid;
  }

  override offsetName(ts: number, options: ZoneOffsetOptions) {
    return this.#zone.offsetName(ts, options);
  }

  override formatOffset(ts: number, format: ZoneOffsetFormat) {
    return this.#zone.formatOffset(ts, format);
  }

  override offset(ts: number) {
    return Number.isFinite(ts) ? offsetAt(this.#zone, ts) : this.#zone.offset(ts);
  }

  override equals(other: Zone) {
    return this.#zone.equals(other);
  }
}
