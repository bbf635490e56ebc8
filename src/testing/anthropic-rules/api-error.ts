import type { ApiProblem } from "./wire.js";

/** The JSON body of an API error, as the Messages API writes it. */
export interface ApiErrorBody {
  type: "error";
  error: { type: string; message: string; details?: { error_code: string } };
}

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

/** The SDK's class name for each status (`Anthropic.BadRequestError` for 400, …). */
const ERROR_NAMES: Readonly<Record<number, string>> = {
  400: "BadRequestError",
  401: "AuthenticationError",
  403: "PermissionDeniedError",
  404: "NotFoundError",
  413: "ContentTooLargeError",
  429: "RateLimitError",
  529: "OverloadedError",
};

/**
 * An API error shaped like the SDK's `APIError` subclasses (`BadRequestError` for a 400, …):
 * the same `name`, `status`, `error` body, `headers`, `requestID`, `type`, `errorCode`,
 * `apiMessage`, and the same `message` (`400 {"type":"error",…}`), so code that reads those
 * fields handles it as it would the SDK's. `instanceof Anthropic.APIError` is false: pass the
 * SDK's own classes through `AnthropicStandInOptions.makeError` where that matters.
 */
export class StandInApiError extends Error {
  readonly status: number;
  readonly error: ApiErrorBody;
  readonly headers: Headers;
  readonly requestID: string | null;
  readonly type: string;
  readonly errorCode: string | null;
  readonly apiMessage: string;

  constructor(status: number, error: ApiErrorBody, headers: Headers) {
    super(`${status} ${JSON.stringify(error)}`);
    this.name = ERROR_NAMES[status] ?? (status >= 500 ? "InternalServerError" : "APIError");
    this.status = status;
    this.error = error;
    this.headers = headers;
    this.requestID = headers.get("request-id");
    this.type = error.error.type;
    this.errorCode = error.error.details?.error_code ?? null;
    this.apiMessage = error.error.message;
  }
}

/** The error body of a problem. */
export function errorBody(problem: ApiProblem): ApiErrorBody {
  return {
    type: "error",
    error: {
      type: problem.errorType ?? ERROR_TYPES[problem.status] ?? "api_error",
      message: problem.message,
      ...(problem.errorCode === undefined ? {} : { details: { error_code: problem.errorCode } }),
    },
  };
}
