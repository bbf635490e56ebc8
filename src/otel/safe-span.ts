import type { Attributes, Exception, Span } from "@opentelemetry/api";

/**
 * The most characters a string attribute carries: identifiers (a strategy, an `error.type`, a
 * conversation id, a model) are short, and a hostile or careless one must not make a span huge.
 */
export const MAX_ATTRIBUTE_CHARS = 256;

/**
 * The most characters of a failure's status description: an error's message may quote what a
 * provider answered, of any length.
 */
export const MAX_STATUS_CHARS = 1_024;

/**
 * The most characters of an exception event's stack trace: its frames after the message (itself
 * cut to {@link MAX_STATUS_CHARS}).
 */
export const MAX_STACKTRACE_CHARS = 4_096;

/** `text` cut to `max` characters (never half a surrogate pair), with `…` when cut. */
export function boundedText(text: string, max: number = MAX_ATTRIBUTE_CHARS): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** `attributes` with each string value bounded (the others as they are). */
export function boundedAttributes(attributes: Attributes): Attributes {
  const bounded: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    bounded[key] = typeof value === "string" ? boundedText(value) : value;
  }
  return bounded;
}

/**
 * Runs a tracing step and swallows what it throws: a tracer, a span processor or an exporter
 * that throws must never break a compaction or a summary (tracing is the app's observer, and
 * the session reports nothing of it). Answers `undefined` when the step threw.
 */
export function safely<T>(step: () => T): T | undefined {
  try {
    return step();
  } catch {
    return undefined;
  }
}

/**
 * Records `error` on `span` as an exception event (`exception.type`: its class name,
 * `exception.message`, `exception.stacktrace`), each bounded as the span's attributes are: the
 * message as a status description, the stack to {@link MAX_STACKTRACE_CHARS}.
 */
export function recordError(span: Span, error: unknown): void {
  span.recordException(boundedException(error));
}

/** What {@link recordError} records of `error`, read once and bounded. */
function boundedException(error: unknown): Exception {
  if (typeof error !== "object" || error === null)
    return { message: boundedText(String(error), MAX_STATUS_CHARS) };
  const { name, message, stack } = error as { name?: unknown; message?: unknown; stack?: unknown };
  const type = boundedText(typeof name === "string" ? name : "Error");
  const text = typeof message === "string" ? message : "";
  const bounded: Exception = { name: type, message: boundedText(text, MAX_STATUS_CHARS) };
  if (typeof stack !== "string") return bounded;
  // V8 starts the stack with `name: message`, which may be of any length: bounded as the message.
  const head = `${String(name)}: ${text}`;
  const frames = stack.startsWith(head)
    ? `${type}: ${bounded.message}${stack.slice(head.length)}`
    : stack;
  return { ...bounded, stack: boundedText(frames, MAX_STACKTRACE_CHARS) };
}

/** Ends `span`, whatever its `end` throws. */
export function endSafely(span: Span): void {
  safely(() => span.end());
}
