// In-memory tracing and a session that emits scripted events, for the OpenTelemetry tests.
import { type Context, type ContextManager, ROOT_CONTEXT } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import type { TracedSession } from "../../src/otel/trace-compactions.js";
import type { CompactionEvent } from "../../src/session/events.js";

/** An in-memory tracer for the tests: every ended span lands in `spans()`. */
export function memoryTracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return {
    provider,
    tracer: provider.getTracer("test"),
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
  };
}

/** A session stand-in that emits the events it is told to, as the session does. */
export class FakeSession implements TracedSession {
  readonly sessionId = "session-otel";
  messages: unknown[] = [];
  readonly #listeners = new Set<(event: CompactionEvent) => void>();

  on(listener: (event: CompactionEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(event: CompactionEvent): void {
    for (const listener of this.#listeners) listener(event);
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }
}

/** A context manager for synchronous nesting (the tests need no async propagation). */
export class StackContextManager implements ContextManager {
  #stack: Context[] = [];

  active(): Context {
    return this.#stack.at(-1) ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    this.#stack.push(context);
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.#stack.pop();
    }
  }

  bind<T>(_context: Context, target: T): T {
    return target;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.#stack = [];
    return this;
  }
}
