import { arg } from '../input/args.ts';
import { TEXT_INPUT, WEBSITE_INPUT } from '../input/documented-inputs.ts';
import { stringOrEmpty, urlOrEmpty } from '../input/validators.ts';

/** A free-text field: a string (or number, e.g. a zip code) or `""` to clear it. */
export const textField = (description: string) =>
  arg.any({ description, validate: stringOrEmpty, schema: undefined, openapi: TEXT_INPUT });

export const websiteField = (description: string) =>
  arg.any({
    description,
    validate: (value, ctx, name) => typeof value === 'string' && urlOrEmpty(value, ctx, name) === true,
    openapi: WEBSITE_INPUT,
  });
