import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { trajectoryArbitrary } from "../../test/arbitraries/trajectory.js";
import { seed } from "../../test/properties/invariants.js";
import { oneChanged, replacementArbitrary } from "../../test/support/mutation.js";
import { validatedEstimate } from "../core/entry-validation.js";
import type { Message } from "../core/message.js";
import { estimateContentTokens } from "../core/tokens.js";
import { ItemOrigins } from "../internal/item-origins.js";
import { compactAnthropicMessages } from "./compact-messages.js";
import { QuickMessageReader } from "./quick-message-blocks.js";
import { toAnthropicMessages } from "./request.js";
import { anthropicMessagesToOurs, fromAnthropicMessages } from "./turns.js";

// compactAnthropicMessages reads a stateless request's messages once: tool inputs kept as the
// caller's (its messages die with the call), the estimate and the reused tool ids worked out
// as each message is read. What it hands back is what it handed back when it copied them.

const replacements = replacementArbitrary(["", "x", 0, null, undefined, {}, [], { path: "a" }]);

/** A conversation's params, and a copy with one value replaced (the schemas then read it). */
const conversations = fc
  .tuple(trajectoryArbitrary(), fc.nat(), replacements)
  .map(([messages, pick, replacement]) => {
    const params = toAnthropicMessages(messages) as unknown[];
    return [params, oneChanged(params, pick, replacement) as unknown[]] as const;
  });

describe("the one-call reading of Anthropic messages", () => {
  it("tells the estimate estimateContentTokens gives, whether it copies tool inputs or not", () => {
    fc.assert(
      fc.property(trajectoryArbitrary(), (messages: Message[]) => {
        const params = toAnthropicMessages(messages) as unknown[];
        for (const share of [true, false]) {
          const reader = new QuickMessageReader(share);
          for (const param of params) {
            const blocks = reader.read(param);
            if (blocks !== undefined) expect(reader.tokens).toBe(estimateContentTokens(blocks));
          }
        }
      }),
      { seed: seed(20_261_214), numRuns: 200 },
    );
  });

  it("remembers the conversion with the estimate of what it built, params the schemas read too", () => {
    let read = 0;
    fc.assert(
      fc.property(conversations, ([params, changed]) => {
        for (const each of [params, changed]) {
          let messages: Message[];
          try {
            messages = anthropicMessagesToOurs(
              each,
              { idPrefix: "" },
              new ItemOrigins(each as MessageParam[]),
            );
          } catch {
            continue;
          }
          read += 1;
          const expected = messages.reduce(
            (sum, message) => sum + estimateContentTokens(message.content),
            0,
          );
          // Remembered as checked: the estimate is the one the reading worked out.
          expect(validatedEstimate(messages, "messages")).toBe(expected);
        }
      }),
      { seed: seed(20_261_215), numRuns: 200 },
    );
    expect(read).toBeGreaterThan(200);
  });

  it("keeps the caller's tool inputs unchanged, and fromAnthropicMessages still copies them", async () => {
    const input = { path: "a.ts", options: { depth: 1 } };
    const params = [
      { role: "user" as const, content: "Read a.ts" },
      {
        role: "assistant" as const,
        content: [{ type: "tool_use" as const, id: "toolu_1", name: "read", input }],
      },
      {
        role: "user" as const,
        content: [
          { type: "tool_result" as const, tool_use_id: "toolu_1", content: "x".repeat(8000) },
        ],
      },
      { role: "assistant" as const, content: "Read." },
      { role: "user" as const, content: "Again" },
      { role: "assistant" as const, content: "Done." },
      { role: "user" as const, content: "And again" },
      { role: "assistant" as const, content: "Done." },
      { role: "user" as const, content: "Once more" },
    ];
    const before = JSON.stringify(params);
    const done = await compactAnthropicMessages(params, { contextLimit: 2400 });
    expect(done.compacted).toBe(true);
    expect(JSON.stringify(done.messages)).not.toContain("x".repeat(8000));
    expect(JSON.stringify(params)).toBe(before);
    const [, call] = fromAnthropicMessages(params, { sessionId: "s" });
    const block = call!.content[0]!;
    expect(block.type === "tool_use" && block.input).toEqual(input);
    expect(block.type === "tool_use" && block.input).not.toBe(input);
  });

  it("writes anew a tool use id an earlier call had, whether or not anything was compacted", async () => {
    const exchange = (id: string, text: string) => [
      {
        role: "assistant" as const,
        content: [{ type: "tool_use" as const, id, name: "ls", input: {} }],
      },
      {
        role: "user" as const,
        content: [{ type: "tool_result" as const, tool_use_id: id, content: text }],
      },
    ];
    const params = [
      { role: "user" as const, content: "List the files." },
      ...exchange("call_0", "a.ts"),
      ...exchange("call_0", "b.ts"),
      { role: "assistant" as const, content: "a.ts b.ts" },
      { role: "user" as const, content: "And now?" },
    ];
    const idsOf = (messages: readonly unknown[]) =>
      (messages as typeof params).flatMap((message) =>
        typeof message.content === "string"
          ? []
          : message.content.flatMap((block) =>
              block.type === "tool_use"
                ? [`use ${block.id}`]
                : block.type === "tool_result"
                  ? [`result ${block.tool_use_id}`]
                  : [],
            ),
      );
    // Nothing due: the calls as the API takes them, the messages before the reuse the caller's own.
    const done = await compactAnthropicMessages(params, { contextLimit: 100_000 });
    expect(done.compacted).toBe(true);
    expect(idsOf(done.messages)).toEqual([
      "use call_0",
      "result call_0",
      "use call_0_2",
      "result call_0_2",
    ]);
    expect(done.messages[1]).toBe(params[1]);
    // Compacted: what is left of them distinct too.
    const tight = await compactAnthropicMessages(params, { contextLimit: 150 });
    const uses = idsOf(tight.messages).filter((id) => id.startsWith("use"));
    expect(new Set(uses).size).toBe(uses.length);
  });
});
