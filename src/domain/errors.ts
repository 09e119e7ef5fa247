// The errors of the core. They say what went wrong in the domain's terms; the HTTP edge (src/http/errors.ts
// `toApiError`) turns each into a status and the contract's error body, other surfaces into their own messages.

/** What kind of failure: decides the HTTP status at the edge. */
export type DomainErrorKind =
  /** The input cannot be accepted (400). */
  | 'invalid'
  /** The caller may not do this (401 for anonymous callers, 403 otherwise). */
  | 'forbidden'
  /** The caller may not see this item (403 whoever the caller is). */
  | 'not_accessible'
  | 'not_found'
  /** The item is in the trash (410). */
  | 'gone'
  | 'conflict'
  /** A condition the caller set on the write (D22 `If-Match`) does not hold: nothing changed (412). */
  | 'precondition_failed'
  /** D31: the request ran out of time; nothing it was writing was saved (503). */
  | 'timeout';

export class DomainError extends Error {
  readonly kind: DomainErrorKind;
  readonly code: string;
  /** Extra members of the error body's `data` (the reference puts e.g. `term_id` there). */
  readonly data: Record<string, unknown>;
  /** Extra top-level members of the error body (the reference's `additional_data`). */
  readonly extra: Record<string, unknown> | undefined;

  constructor(
    kind: DomainErrorKind,
    code: string,
    message: string,
    data: Record<string, unknown> = {},
    extra?: Record<string, unknown>,
  ) {
    super(message);
    this.kind = kind;
    this.code = code;
    this.data = data;
    this.extra = extra;
  }
}

/** A field's own problem: its message and the `details` entry the edge reports for it. */
export interface FieldIssue {
  code: string;
  message: string;
  data?: unknown;
}

/** One or more fields are invalid (`rest_invalid_param` at the edge); `null` is a plain "Invalid parameter.". */
export class InvalidFields extends Error {
  readonly fields: Record<string, FieldIssue | null>;

  constructor(fields: Record<string, FieldIssue | null>) {
    super(`Invalid parameter(s): ${Object.keys(fields).join(', ')}`);
    this.fields = fields;
  }
}

export const invalidField = (name: string, issue: FieldIssue | null = null) => new InvalidFields({ [name]: issue });

/** Required fields were not sent (`rest_missing_callback_param` at the edge). */
export class MissingFields extends Error {
  readonly names: readonly string[];

  constructor(names: readonly string[]) {
    super(`Missing parameter(s): ${names.join(', ')}`);
    this.names = names;
  }
}

export const notAllowed = () =>
  new DomainError('forbidden', 'rest_forbidden', 'Sorry, you are not allowed to do that.');

/** D22: the item is not (any more) the representation the caller's `If-Match` names. */
export const preconditionFailed = () =>
  new DomainError(
    'precondition_failed',
    'rest_precondition_failed',
    'The item has changed since it was read (If-Match does not match its current ETag): read it again before writing.',
  );

/** The `code` of a thrown value, when it has one (Node's, SQLite's and PostgreSQL's errors carry theirs there). */
export const errorCode = (error: unknown): unknown =>
  typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;

/** What a thrown value says, for a message: an Error's message, anything else as text. */
export const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));
