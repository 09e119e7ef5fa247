import { isOneOf } from '../../domain/lists.ts';
import { canUploadFiles, listStatusesAllowed, POST_STATUSES } from '../../domain/access.ts';
import { arg, type Validator } from '../input/args.ts';
import type { CommandContext } from '../input/context.ts';
import { DATE_INPUT, IMAGE_INPUT } from '../input/documented-inputs.ts';
import { isTime, nonEmptyString, positiveInteger } from '../input/validators.ts';
import { findUserById } from '../users/store.ts';
import { isImageId, readImageInput } from '../images/images.ts';
import { findPostById, findPostBySlug, type PostRow, type PostType } from './store.ts';

export const isRegisteredStatus: Validator<string> = (value) => isOneOf(POST_STATUSES, value);

export const isExistingUser: Validator<number> = async (value, ctx) =>
  value > 0 && (await findUserById(ctx.store.db, value)) !== undefined;

/**
 * D6: empty (clears), an absolute http(s) URL, or the id of an existing image record. A URL adds media (an image
 * record), which, as in the reference, only callers who may upload files (authors and up) may do.
 */
export const validImage: Validator<unknown> = async (value, ctx) => {
  const input = readImageInput(value);
  if (!input) return false;
  if ('url' in input) return canUploadFiles(ctx.viewer);
  return 'id' in input ? isImageId(ctx.store.db, input.id) : true;
};

/** The list `status` filter: what the caller may ask for (§10, D19). */
export const allowedListStatus: Validator<string[]> = (value, ctx) => listStatusesAllowed(ctx.viewer, value).ok;

/** A post of `type` by id, loaded once per request (validators and handlers share it). */
export const loadPost = (ctx: Pick<CommandContext, 'memo' | 'store'>, id: number) =>
  ctx.memo(`post:${id}`, () => findPostById(ctx.store.db, id));

export const loadPostBySlug = (ctx: Pick<CommandContext, 'memo' | 'store'>, type: PostType, slug: string) =>
  ctx.memo(`slug:${type}:${slug}`, () => findPostBySlug(ctx.store.db, type, slug));

export const isPostOfType =
  (type: PostType): Validator<number> =>
  async (id, ctx) =>
    (await loadPost(ctx, id))?.type === type;

export const isSlugOfType =
  (type: PostType): Validator<string> =>
  async (slug, ctx) =>
    (await loadPostBySlug(ctx, type, slug)) !== undefined;

export const pagingArgs = {
  page: arg.integer({
    description: 'The page of results to return, starting at 1.',
    default: 1,
    validate: positiveInteger,
  }),
  per_page: arg.integer({
    description:
      'How many items a page holds (default: the configured page size); values above the configured maximum are lowered to it.',
    validate: positiveInteger,
    documentedDefault: (ctx) => ctx.config.perPageDefault,
  }),
};

export const listStatusArg = arg.stringList({
  description:
    'Only items with one of these statuses. Anonymous callers may ask only for publish; editors default to every status but trash.',
  validate: allowedListStatus,
});

/** D31: the whole `search` value, as WordPress bounds it too. */
export const MAX_SEARCH_LENGTH = 200;

export const searchArg = arg.string({
  description: `Only items that match these words (at most ${MAX_SEARCH_LENGTH} characters; more than 9 words are searched as one phrase).`,
  validate: nonEmptyString,
  maxLength: MAX_SEARCH_LENGTH,
});

/** What every post-like write accepts besides its own fields. */
export const postWriteArgs = {
  status: arg.string({
    description: 'Publication status; scaled back to pending or draft for callers who may not publish.',
    validate: isRegisteredStatus,
    enum: POST_STATUSES,
  }),
  author: arg.integer({
    description: 'The id of the user who owns the item; defaults to the caller.',
    validate: isExistingUser,
  }),
  date: arg.any({
    description: 'Publication date, read in the site time zone.',
    validate: isTime,
    format: 'date-time',
    openapi: DATE_INPUT,
  }),
  date_utc: arg.any({
    description: 'Publication date in UTC.',
    validate: isTime,
    format: 'date-time',
    openapi: DATE_INPUT,
  }),
  image: arg.any({
    description: 'Featured image: an absolute http(s) URL, the id of an image, or empty to remove it.',
    validate: validImage,
    openapi: IMAGE_INPUT,
  }),
};

export const forceArg = arg.boolean({
  description: 'Delete permanently instead of moving to the trash.',
  default: false,
});

/** D24: bounds on `modified_utc` (domain/dates/modified-bounds.ts says what they mean), on every post list. */
export const modifiedArgs = {
  modified_after: arg.any({
    description:
      'Only items last changed after this date (exclusive), compared with modified_utc; read in the site time zone unless it carries an offset.',
    validate: isTime,
    format: 'date-time',
    openapi: DATE_INPUT,
  }),
  modified_before: arg.any({
    description:
      'Only items last changed at or before this date (inclusive), compared with modified_utc; read in the site time zone unless it carries an offset.',
    validate: isTime,
    format: 'date-time',
    openapi: DATE_INPUT,
  }),
};

export type { PostRow };
