import { type Tracer, trace } from "@opentelemetry/api";
import { ValidationError } from "../core/errors.js";
import { INSTRUMENTATION_SCOPE } from "./attributes.js";

/** The tracer to use: the one given, else the global provider's (a no-op until one is registered). */
export function tracerOf(tracer: Tracer | undefined): Tracer {
  return tracer ?? trace.getTracer(INSTRUMENTATION_SCOPE);
}

/** Throws a `ValidationError` naming `field` unless `value` is a tracer (or absent). */
export function assertTracer(value: unknown, subject: string): void {
  if (value === undefined) return;
  if (typeof value === "object" && value !== null && "startSpan" in value) {
    if (typeof value.startSpan === "function") return;
  }
  throw new ValidationError(subject, [
    { path: ["tracer"], message: "must be an OpenTelemetry Tracer (with startSpan)" },
  ]);
}
