import { parseDateInput } from '../../domain/dates/input-grammar.ts';
import type { Validator } from './args.ts';
import { isAbsoluteUrl } from '../../domain/urls.ts';

/** `is_string` in the reference: present and non-empty (`""` is rejected). */
export const nonEmptyString: Validator<string> = (value) => value.trim() !== '';

export const positiveInteger: Validator<number> = (value) => value > 0;

/** D8: every accepted date form, read in the site's zone (the value itself is parsed again where it is used). */
export const isTime: Validator<unknown> = (value, ctx) =>
  parseDateInput(value, ctx.config.siteTimezone, ctx.now) !== null;

/** Empty, or a valid absolute http(s) URL. */
export const urlOrEmpty: Validator<string> = (value) => value.trim() === '' || isAbsoluteUrl(value.trim());

/** Scalars only: `""` is allowed (it clears), arrays and objects are not. */
export const stringOrEmpty: Validator<unknown> = (value) => typeof value === 'string' || typeof value === 'number';
