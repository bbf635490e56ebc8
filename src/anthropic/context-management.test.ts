import { describe, expect, it } from "vitest";
import { ThresholdCompactor } from "../compactors/threshold-compactor.js";
import { ValidationError } from "../core/errors.js";
import { anthropicContextManagement } from "./context-management.js";

describe("anthropicContextManagement", () => {
  it("maps the masking compactor's options to clear_tool_uses_20250919", () => {
    expect(
      anthropicContextManagement({
        contextLimit: 200_000,
        threshold: 0.5,
        keepRecentToolUses: 5,
        clearAtLeast: 10_000,
        excludeTools: ["memory"],
        clearToolInputs: ["write_file"],
      }),
    ).toEqual({
      edits: [
        {
          type: "clear_tool_uses_20250919",
          trigger: { type: "input_tokens", value: 100_000 },
          keep: { type: "tool_uses", value: 5 },
          clear_at_least: { type: "input_tokens", value: 10_000 },
          exclude_tools: ["memory"],
          clear_tool_inputs: ["write_file"],
        },
      ],
    });
  });

  it("leaves the API's defaults where the options leave theirs, and puts clear_thinking first", () => {
    expect(anthropicContextManagement({ contextLimit: 100_000 })).toEqual({
      edits: [
        { type: "clear_tool_uses_20250919", trigger: { type: "input_tokens", value: 75_000 } },
      ],
    });
    const { edits } = anthropicContextManagement({
      contextLimit: 100_000,
      clearToolInputs: true,
      clearThinking: { keepTurns: 2 },
    });
    expect(edits[0]).toEqual({
      type: "clear_thinking_20251015",
      keep: { type: "thinking_turns", value: 2 },
    });
    expect(edits[1]).toMatchObject({ clear_tool_inputs: true });
    expect(
      anthropicContextManagement({ contextLimit: 10, clearThinking: { keepTurns: "all" } })
        .edits[0],
    ).toEqual({ type: "clear_thinking_20251015", keep: "all" });
  });

  it("takes a ThresholdCompactor's config as it is", () => {
    const compactor = new ThresholdCompactor({ keepRecentToolUses: 4, excludeTools: ["notes"] });
    const { edits } = anthropicContextManagement({ ...compactor.config, contextLimit: 64_000 });
    expect(edits).toEqual([
      {
        type: "clear_tool_uses_20250919",
        trigger: { type: "input_tokens", value: 48_000 },
        keep: { type: "tool_uses", value: 4 },
        exclude_tools: ["notes"],
      },
    ]);
  });

  it("refuses bad options, naming the field", () => {
    expect(() => anthropicContextManagement({ contextLimit: 0 })).toThrow(ValidationError);
    expect(() => anthropicContextManagement({ contextLimit: 10, threshold: 2 })).toThrow(
      /threshold/,
    );
    expect(() =>
      anthropicContextManagement({ contextLimit: 10, clearThinking: { keepTurns: 0 } }),
    ).toThrow(/clearThinking/);
    expect(() => anthropicContextManagement({ contextLimit: 10, keep: 3 } as never)).toThrow(
      /keep/,
    );
  });
});
