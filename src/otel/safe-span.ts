import type { Attributes, Span } from "@opentelemetry/api";

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

/** Ends `span`, whatever its `end` throws. */
export function endSafely(span: Span): void {
  safely(() => span.end());
}
