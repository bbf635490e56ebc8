import { describe, expect, it } from "vitest";
import type { CompactionEvent } from "./events.js";
import { SessionEvents } from "./session-events.js";

describe("SessionEvents", () => {
  it("tells every listener in order, logs one that throws and goes on", () => {
    const warnings: string[] = [];
    const seen: string[] = [];
    const events = new SessionEvents({ warn: (message) => warnings.push(message) }, (event) =>
      seen.push(`onEvent ${event.type}`),
    );
    events.on(() => {
      throw new Error("listener bug");
    });
    const off = events.on((event) => seen.push(`on ${event.type}`));
    const event: CompactionEvent = {
      type: "context_overflow",
      trigger: "auto",
      contextUsed: 2,
      contextLimit: 1,
      detail: "x",
    };
    events.emit(event);
    off();
    events.emit(event);
    expect(seen).toEqual([
      "onEvent context_overflow",
      "on context_overflow",
      "onEvent context_overflow",
    ]);
    expect(warnings).toEqual([
      "agent-compaction: an event listener threw",
      "agent-compaction: an event listener threw",
    ]);
  });

  it("reports a window problem once per kind, a refusal each time, and the configured window to each later listener", () => {
    const seen: CompactionEvent[] = [];
    const events = new SessionEvents(undefined, undefined);
    const configured = { kind: "unknown_model", model: "m", message: "unknown" } as never;
    events.warnConfiguredWindow(configured);
    events.on((event) => seen.push(event));
    const refused = { kind: "refused_above_window", message: "smaller" } as never;
    events.warnWindow(configured);
    events.warnWindowAgain(refused);
    events.warnWindowAgain(refused);
    expect(seen.map((event) => (event as { problem: { kind: string } }).problem.kind)).toEqual([
      "unknown_model",
      "refused_above_window",
      "refused_above_window",
    ]);
  });
});
