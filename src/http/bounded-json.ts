// D31: the response budget (MAX_RESPONSE_BYTES) and the event-loop rule for lists. A list's items are built and
// serialised one at a time (an `ItemStream`), their bytes counted as they go: past the budget the answer is a 400
// asking for a smaller page, decided before the rest is even built; between items the event loop gets a turn.
import { checkDeadline } from '../store/deadline.ts';
import { yieldIfBusy } from '../store/event-loop.ts';
import { ApiError } from './errors.ts';

/**
 * The items of a list, produced lazily: `JSON.stringify` reads it as the array it stands for (so any serialiser
 * works), `serializeBounded` builds and serialises one item at a time.
 */
export class ItemStream<T = unknown> {
  readonly #source: Iterable<T>;
  constructor(source: Iterable<T>) {
    this.#source = source;
  }
  [Symbol.iterator](): Iterator<T> {
    return this.#source[Symbol.iterator]();
  }
  toJSON(): T[] {
    return [...this.#source];
  }
}

/**
 * An item already encoded as JSON (a stored document, D34): written as it is. Another serialiser gets its value
 * through `toJSON`.
 */
export class EncodedJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/**
 * `items` mapped lazily through `build` (each item is built only when the serialiser reaches it). A plain iterator, not
 * a generator: with a generator here, the items every list built survived V8's young-generation collections and were
 * copied into the old generation, which then had to be collected three times a second (measured on 2026-11-27 with
 * `--trace-gc-nvp`, lists of a window of days at one connection: about 1 MB surviving each young collection, 3 KB
 * without; a list's CPU about 1,300 → 870 µs).
 */
export function itemStream<T, U>(items: readonly T[], build: (item: T) => U): ItemStream<U> {
  return new ItemStream({
    [Symbol.iterator]: (): Iterator<U> => {
      let next = 0;
      return {
        next: (): IteratorResult<U> =>
          next < items.length ? { done: false, value: build(items[next++]) } : { done: true, value: undefined },
      };
    },
  });
}

const responseTooLarge = (maxBytes: number) =>
  new ApiError(
    400,
    'rest_response_too_large',
    `The answer would be larger than the limit of ${maxBytes} bytes: ask for fewer items (a smaller per_page).`,
    { max_bytes: maxBytes },
  );

/** Whether a JSON body holds a list to be serialised under the budget (an `ItemStream` among its own values). */
export const hasItemStream = (body: unknown): body is Record<string, unknown> =>
  body !== null &&
  typeof body === 'object' &&
  !Array.isArray(body) &&
  Object.values(body).some((value) => value instanceof ItemStream);

/** Text gathered before it is encoded and counted: small pieces are joined first, so encoding stays cheap. */
const FLUSH_AT = 64 * 1024;
/** How deep items are written member by member (an event, its organizers, each organizer whole). */
const ITEM_DEPTH = 2;
/**
 * Text written between two checks of the turn's length and the deadline. A check after every member of every item
 * (an await each) cost a tenth of a ten-event list; what makes a turn long is the size of what is written.
 */
const CHECK_EVERY_CHARACTERS = 16 * 1024;

const omitted = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol';

/**
 * The UTF-8 bytes of `JSON.stringify(body)` for an object whose `ItemStream` values are built and serialised one item
 * at a time, counting bytes as it goes: throws `rest_response_too_large` as soon as they pass `maxBytes`. Every
 * {@link CHECK_EVERY_CHARACTERS} written (between items, or between the members of a large one) it yields to the event
 * loop once a turn has lasted SLICE_MS (store/event-loop.ts), so that even one large item (an event embedding fifty
 * organizers of the largest allowed description) is not one long turn, and stops at the request's deadline. Bytes, not a string: nothing downstream (read cache, ETag, socket)
 * encodes the whole answer again.
 */
export async function serializeBounded(body: Record<string, unknown>, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let pending = '';
  const flush = () => {
    if (pending === '') return;
    const chunk = Buffer.from(pending);
    pending = '';
    bytes += chunk.length;
    if (bytes > maxBytes) throw responseTooLarge(maxBytes);
    chunks.push(chunk);
  };
  let sinceCheck = 0;
  const emit = (text: string) => {
    pending += text;
    sinceCheck += text.length;
    if (pending.length >= FLUSH_AT) flush();
  };
  const pause = async () => {
    sinceCheck = 0;
    await yieldIfBusy('answer');
    checkDeadline();
  };
  /** `JSON.stringify(value)`, objects and arrays down to `depth` levels written member by member. */
  const write = async (value: unknown, depth: number): Promise<void> => {
    if (value instanceof EncodedJson) {
      emit(value.text);
      return;
    }
    if (
      depth === 0 ||
      value === null ||
      typeof value !== 'object' ||
      ('toJSON' in value && typeof value.toJSON === 'function')
    ) {
      emit(JSON.stringify(value) ?? 'null');
      return;
    }
    if (Array.isArray(value)) {
      emit('[');
      for (let index = 0; index < value.length; index++) {
        if (index > 0) emit(',');
        if (omitted(value[index])) emit('null');
        else await write(value[index], depth - 1);
        if (sinceCheck >= CHECK_EVERY_CHARACTERS) await pause();
      }
      emit(']');
      return;
    }
    emit('{');
    let first = true;
    for (const [key, member] of Object.entries(value)) {
      if (omitted(member)) continue;
      emit(`${first ? '' : ','}${JSON.stringify(key)}:`);
      first = false;
      await write(member, depth - 1);
      if (sinceCheck >= CHECK_EVERY_CHARACTERS) await pause();
    }
    emit('}');
  };

  emit('{');
  let firstKey = true;
  for (const [key, value] of Object.entries(body)) {
    if (omitted(value)) continue;
    emit(`${firstKey ? '' : ','}${JSON.stringify(key)}:`);
    firstKey = false;
    if (!(value instanceof ItemStream)) {
      emit(JSON.stringify(value) ?? 'null');
      continue;
    }
    emit('[');
    let firstItem = true;
    for (const item of value) {
      if (!firstItem) emit(',');
      firstItem = false;
      if (omitted(item)) emit('null');
      else await write(item, ITEM_DEPTH);
      if (sinceCheck >= CHECK_EVERY_CHARACTERS) await pause();
    }
    emit(']');
  }
  emit('}');
  flush();
  return Buffer.concat(chunks, bytes);
}
