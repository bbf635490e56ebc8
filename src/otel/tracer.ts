import { type Tracer, trace } from "@opentelemetry/api";
import { methodsSchema } from "../core/option-schemas.js";
import { INSTRUMENTATION_SCOPE } from "./attributes.js";

/** The tracer to use: the one given, else the global provider's (a no-op until one is registered). */
export function tracerOf(tracer: Tracer | undefined): Tracer {
  return tracer ?? trace.getTracer(INSTRUMENTATION_SCOPE);
}

/** The `tracer` option: an OpenTelemetry `Tracer`. */
export const TRACER_SCHEMA = methodsSchema<Tracer>("an OpenTelemetry Tracer", "startSpan");
