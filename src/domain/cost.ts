// Event cost (reference §3.8, §5.2 `cost`): the raw values as sent, the currency parsed from them, the numbers of
// `cost_details.values` and the display string of `cost`.
//
// A cost value is read as numbers (`\d+` groups joined by `.` or `,`) and the text around them:
// - a value with no digit at all (`"Free"`, `"Donation"`) is one text item, kept as its slug in `cost_details.values`
//   and shown as written; it ranks as 0 among the numbers;
// - otherwise only its numbers count: `"10-20"` and `"$10 - $20"` are 10 and 20, and words around numbers are not
//   values (`"10 per person"` is 10).
import { slugify } from './slugs.ts';

export type CurrencyPosition = 'prefix' | 'postfix';

export interface ParsedCost {
  /** The cost values as sent, trimmed, empty ones dropped. */
  values: string[];
  /** `""` when the values carry no currency symbol, or not all the same one. */
  symbol: string;
  position: CurrencyPosition | '';
}

export interface CurrencyDefault {
  symbol: string;
  position: CurrencyPosition;
}

interface Currency {
  symbol: string;
  position: CurrencyPosition;
}

type CostItem =
  | { kind: 'number'; written: string; normalised: string; amount: number }
  | { kind: 'text'; text: string; slug: string };

/** A number as written: digit groups joined by `.` or `,` (`25`, `10.50`, `1,000.50`, `23,5`). */
const NUMBER = /(\d+(?:[.,]\d+)*)/;
/** A range or list separator between two numbers of one value, with the symbols written next to them. */
const BETWEEN_NUMBERS = /^(\S*?)\s*(?:[-–—/,]|\bto\b)\s*(\S*)$/u;
/** Separators and spaces before the first number or after the last, which are not part of a symbol (`"-5"`). */
const OUTER_PUNCTUATION = /^[\s\-–—/,]+|[\s\-–—/,]+$/gu;
const RANGE_SEPARATOR = ' – ';

/**
 * Reads the `cost` input: a string, a number, or an array of strings and numbers (an empty array clears the cost).
 * `null` when it is none of these.
 */
export function parseCost(raw: unknown): ParsedCost | null {
  const sent = Array.isArray(raw) ? raw : [raw];
  if (!sent.every((value) => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)))) {
    return null;
  }
  const values = sent.map((value) => String(value).trim()).filter((value) => value !== '');
  const currency = sharedCurrency(values);
  return { values, symbol: currency?.symbol ?? '', position: currency?.position ?? '' };
}

/**
 * `cost_details.values`: every number in the stored values, normalised (`"1,000.50"` → `"1000.50"`, `"23,5"` →
 * `"23.5"`), and the slug of every all-text value, sorted ascending (text as 0), without duplicates.
 */
export function costValues(rawValues: string[]): string[] {
  return sortedCostItems(rawValues)
    .map((item) => (item.kind === 'number' ? item.normalised : item.slug))
    .filter((value) => value !== '');
}

/**
 * The `cost` display string: `""` without a cost, else the lowest item, or `lowest – highest` when they differ. An
 * amount of 0 is `Free`; other amounts are written as sent, with the event's currency (or the site default where the
 * event has none); a text item is shown as written.
 */
export function formatCost(
  rawValues: string[],
  symbol: string,
  position: string,
  siteDefault: CurrencyDefault,
): string {
  const items = sortedCostItems(rawValues);
  if (items.length === 0) return '';
  const currency: Currency = {
    symbol: symbol || siteDefault.symbol,
    position: position === 'prefix' || position === 'postfix' ? position : siteDefault.position,
  };
  const lowest = displayItem(items[0], currency);
  const highest = displayItem(items[items.length - 1], currency);
  return lowest === highest ? lowest : lowest + RANGE_SEPARATOR + highest;
}

function displayItem(item: CostItem, currency: Currency): string {
  if (item.kind === 'text') return item.text;
  if (item.amount === 0) return 'Free';
  return withCurrency(item.written, currency);
}

function withCurrency(amount: string, { symbol, position }: Currency): string {
  // A code or word (`EUR`, `kr`) reads as a separate word; a sign (`$`, `€`, `US$`) is written against the number.
  if (position === 'prefix') return /\p{L}$/u.test(symbol) ? `${symbol} ${amount}` : symbol + amount;
  return /^\p{L}/u.test(symbol) ? `${amount} ${symbol}` : amount + symbol;
}

/** The items of every value, sorted by amount (text as 0, in input order), each amount or text slug once. */
function sortedCostItems(rawValues: string[]): CostItem[] {
  const itemsByKey = new Map<string, CostItem>();
  for (const item of rawValues.flatMap(costItems)) {
    const key = item.kind === 'number' ? String(item.amount) : item.slug || item.text;
    if (!itemsByKey.has(key)) itemsByKey.set(key, item);
  }
  return [...itemsByKey.values()].sort((a, b) => itemAmount(a) - itemAmount(b));
}

function itemAmount(item: CostItem): number {
  return item.kind === 'number' ? item.amount : 0;
}

function costItems(rawValue: string): CostItem[] {
  const value = rawValue.trim();
  if (value === '') return [];
  const { numbers } = splitAtNumbers(value);
  if (numbers.length === 0) return [{ kind: 'text', text: value, slug: slugify(value) }];
  return numbers.map((written) => {
    const normalised = normaliseNumber(written);
    return { kind: 'number', written, normalised, amount: Number(normalised) };
  });
}

/**
 * Removes thousands separators and makes `.` the decimal separator, inferring them as the reference does with an
 * English locale: with both `.` and `,`, the last one is the decimal separator; a single `,` followed by exactly three
 * digits separates thousands (`1,000`), otherwise a single separator is the decimal one (`1.000`, `23,5`). A separator
 * that occurs several times separates thousands (`1.000.000`).
 */
function normaliseNumber(written: string): string {
  const separators = written.match(/[.,]/g);
  if (separators === null) return written;
  const last = separators[separators.length - 1];
  const lastAt = written.lastIndexOf(last);
  const lastIsDecimal =
    new Set(separators).size > 1 || (separators.length === 1 && (last === '.' || written.length - lastAt - 1 !== 3));
  if (!lastIsDecimal) return written.replace(/[.,]/g, '');
  return `${written.slice(0, lastAt).replace(/[.,]/g, '')}.${written.slice(lastAt + 1)}`;
}

/** The currency every value with numbers is written in, or `null` when they have none or disagree. */
function sharedCurrency(values: string[]): Currency | null {
  let shared: Currency | undefined;
  for (const value of values) {
    const currency = valueCurrency(value);
    if (currency === undefined) continue;
    if (currency === null) return null;
    if (shared && !sameCurrency(shared, currency)) return null;
    shared = currency;
  }
  return shared ?? null;
}

/**
 * The currency one value is written in: `undefined` for a value without numbers (it takes no part), `null` when its
 * numbers carry no symbol, or text on both sides (`"USD 10 pp"`).
 *
 * The symbol is the text before (prefix) or after (postfix) the number, as the contract puts it: `"$"`, `"EUR"`, and
 * also `"From $"` in `"From $10"` or `"per person"` in `"10 per person"`, so that the display string keeps those
 * words. In a value with several numbers (`"$10 - $20"`, `"10$, 20$"`, `"10 to 20"`), every number carries the same
 * symbol, or only the first carries a prefix (`"€10-20"`), or only the last a postfix (`"10 - 20 EUR"`); a symbol
 * between two numbers has no spaces.
 */
function valueCurrency(value: string): Currency | null | undefined {
  const { numbers, texts } = splitAtNumbers(value);
  if (numbers.length === 0) return undefined;

  const prefixes = [outerText(texts[0])];
  const suffixes: string[] = [];
  for (const between of texts.slice(1, -1)) {
    const match = BETWEEN_NUMBERS.exec(between.trim());
    if (match === null) return null;
    suffixes.push(match[1]);
    prefixes.push(match[2]);
  }
  suffixes.push(outerText(texts[texts.length - 1]));

  const adornments: (Currency | undefined)[] = [];
  for (const [index, prefix] of prefixes.entries()) {
    const suffix = suffixes[index];
    if (prefix && suffix) return null;
    if (prefix) adornments.push({ symbol: prefix, position: 'prefix' });
    else if (suffix) adornments.push({ symbol: suffix, position: 'postfix' });
    else adornments.push(undefined);
  }

  const first = adornments[0];
  const last = adornments[adornments.length - 1];
  if (first && adornments.every((currency) => currency && sameCurrency(currency, first))) return first;
  if (first?.position === 'prefix' && adornments.slice(1).every((currency) => currency === undefined)) return first;
  if (last?.position === 'postfix' && adornments.slice(0, -1).every((currency) => currency === undefined)) return last;
  return null;
}

/** The text before the first number or after the last, without separators (`"-5"`) and with single spaces. */
function outerText(text: string): string {
  return text.replace(OUTER_PUNCTUATION, '').replace(/\s+/g, ' ');
}

function sameCurrency(a: Currency, b: Currency): boolean {
  return a.symbol === b.symbol && a.position === b.position;
}

/** The numbers of a value, and the texts around them (`texts` has one more entry than `numbers`). */
function splitAtNumbers(value: string): { numbers: string[]; texts: string[] } {
  const pieces = value.split(NUMBER);
  return {
    numbers: pieces.filter((_, index) => index % 2 === 1),
    texts: pieces.filter((_, index) => index % 2 === 0),
  };
}
