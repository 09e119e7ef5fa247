import { DomainError, InvalidFields, MissingFields, type DomainErrorKind, type FieldIssue } from '../domain/errors.ts';
import { deadlineExceeded, isStatementTimeout } from '../store/deadline.ts';

/** Every error the API answers with: rendered as `{code, message, data, ...extra}` by the one error handler. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly data: Record<string, unknown> | null;
  readonly extra: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    data: Record<string, unknown> | null = {},
    options: { extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.data = data === null ? null : { status, ...data };
    this.extra = options.extra;
    this.headers = options.headers;
  }

  toBody(): Record<string, unknown> {
    return { code: this.code, message: this.message, data: this.data, ...this.extra };
  }
}

/** A validator's own error: becomes `data.params[name]` = message and `data.details[name]` = this. */
export type ParamIssue = FieldIssue;

export const NO_ROUTE_MESSAGE = 'No route was found matching the URL and request method.';

export const noRoute = () => new ApiError(404, 'rest_no_route', NO_ROUTE_MESSAGE);

export const forbidden = (authenticated: boolean) =>
  new ApiError(authenticated ? 403 : 401, 'rest_forbidden', 'Sorry, you are not allowed to do that.');

export const missingParams = (names: readonly string[]) =>
  new ApiError(400, 'rest_missing_callback_param', `Missing parameter(s): ${names.join(', ')}`, { params: names });

/**
 * `rest_invalid_param` as WordPress builds it: a plain `false` from a validator reads "Invalid parameter."
 * with `details: []`; an issue object supplies the message and a `details` entry.
 */
export function invalidParams(failures: Record<string, ParamIssue | null>): ApiError {
  const params: Record<string, string> = {};
  const details: Record<string, ParamIssue> = {};
  for (const [name, issue] of Object.entries(failures)) {
    params[name] = issue ? issue.message : 'Invalid parameter.';
    if (issue) details[name] = issue;
  }
  const names = Object.keys(failures);
  return new ApiError(400, 'rest_invalid_param', `Invalid parameter(s): ${names.join(', ')}`, {
    params,
    details: Object.keys(details).length > 0 ? details : [],
  });
}

export const invalidParam = (name: string, issue: ParamIssue | null = null) => invalidParams({ [name]: issue });

export const invalidJson = (errorCode: number, errorMessage: string) =>
  new ApiError(400, 'rest_invalid_json', 'Invalid JSON body passed.', {
    json_error_code: errorCode,
    json_error_message: errorMessage,
  });

const STATUS_OF_KIND: Record<Exclude<DomainErrorKind, 'forbidden'>, number> = {
  invalid: 400,
  not_accessible: 403,
  not_found: 404,
  gone: 410,
  conflict: 409,
  precondition_failed: 412,
  timeout: 503,
};

/** A core error as the API answers it. */
export function domainApiError(error: DomainError, authenticated: boolean): ApiError {
  const status = error.kind === 'forbidden' ? (authenticated ? 403 : 401) : STATUS_OF_KIND[error.kind];
  return new ApiError(status, error.code, error.message, error.data, error.extra ? { extra: error.extra } : {});
}

/** The edge's mapping of the core's errors; anything else is left as it is (an `ApiError`, or a 500 to be). */
export function toApiError<E>(error: E, authenticated: boolean): E | ApiError {
  if (error instanceof MissingFields) return missingParams(error.names);
  if (error instanceof InvalidFields) return invalidParams(error.fields);
  // D31: PostgreSQL's statement_timeout cancelled a statement of this request.
  if (isStatementTimeout(error)) return domainApiError(deadlineExceeded(), authenticated);
  if (!(error instanceof DomainError)) return error;
  return domainApiError(error, authenticated);
}
