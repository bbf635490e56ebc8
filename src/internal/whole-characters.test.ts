import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { answerRecall } from "../anthropic/recall-tool.js";
import { toAnthropicMessages } from "../anthropic/request.js";
import { clipUserWords } from "../compactors/summary-message.js";
import { truncate } from "../compactors/transcript.js";
import type { Message } from "../core/message.js";
import { recallPage } from "../core/recall-page.js";
import { AgentSession } from "../index.js";
import { clampMessage } from "../session/clamp.js";
import { headOf, tailStart } from "./whole-characters.js";

/** Whether `text` holds half a surrogate pair: what JSON writes as an escape the APIs refuse. */
function holdsLoneSurrogate(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
      else return true;
    } else if (code >= 0xdc00 && code <= 0xdfff) return true;
  }
  return false;
}

/** Texts of emoji (two UTF-16 units each), CJK and ASCII, in runs. */
const mixedText = fc
  .array(fc.constantFrom("😀", "𠀋", "字", "a", "\n", "🙂🙂"), { minLength: 1, maxLength: 400 })
  .map((parts) => parts.join(""));

describe("cuts never split a surrogate pair (review 54b H2)", () => {
  it("headOf and tailStart step over a pair", () => {
    expect(headOf("a😀", 2)).toBe("a");
    expect(headOf("a😀", 3)).toBe("a😀");
    expect(tailStart("😀b", 1)).toBe(2);
    expect(tailStart("😀b", 0)).toBe(0);
  });

  it.each(["", "x"])("a clamp of a text of emoji keeps whole characters (prefix %j)", (prefix) => {
    const session = new AgentSession({ contextLimit: 4_000, compactor: false });
    session.addUserText("show the emoji log");
    session.addAssistant([{ type: "tool_use", id: "t1", name: "read", input: {} }]);
    // The pairs sit at odd offsets after the marker's head: an even cut splits one.
    session.addToolResults([
      { type: "tool_result", toolUseId: "t1", content: `${prefix}${"😀".repeat(20_000)}` },
    ]);
    const sent = JSON.stringify(toAnthropicMessages(session.messages));
    expect(sent).toContain("characters cut to fit");
    const clamped = session.messages.at(-1)!.content[0] as { content: string };
    expect(holdsLoneSurrogate(clamped.content)).toBe(false);
    expect(sent).not.toMatch(/\\ud[89a-f]/i);
  });

  it("every page of a recall of emoji holds whole characters", async () => {
    const session = new AgentSession({ contextLimit: 4_000, compactor: false });
    session.addUserText("show the emoji log");
    session.addAssistant([{ type: "tool_use", id: "t1", name: "read", input: {} }]);
    session.addToolResults([
      { type: "tool_result", toolUseId: "t1", content: "😀".repeat(20_000) },
    ]);
    const clamped = session.messages.at(-1)!.content[0] as { content: string };
    const handle = /\[recall (r\d+-[0-9a-f]{4})\]/.exec(clamped.content)![1]!;
    for (let page = 1; page <= 4; page += 1) {
      const answer = await answerRecall(session, { id: `c${page}`, input: { handle, page } });
      expect("is_error" in answer && answer.is_error === true).toBe(false);
      expect(holdsLoneSurrogate(String(answer.content))).toBe(false);
    }
  });

  it("clamps, recall pages, clipped user words and truncated transcripts, on any text", () => {
    fc.assert(
      fc.property(mixedText, fc.integer({ min: 1, max: 60 }), (text, size) => {
        const message: Message = {
          id: "u1",
          sessionId: "s",
          turnId: { owner: "u", number: 1 },
          createdAt: new Date(0),
          role: "user",
          content: [{ type: "text", text: text.repeat(4) }],
        };
        const { message: clamped } = clampMessage(message, size);
        for (const block of clamped.content)
          if (block.type === "text") expect(holdsLoneSurrogate(block.text)).toBe(false);
        const options = { handle: "r1-abcd", pageTokens: size + 50, toolName: "recall" };
        for (let page = 1; ; page += 1) {
          let body: string;
          try {
            body = recallPage(text.repeat(4), { ...options, page });
          } catch {
            break;
          }
          expect(holdsLoneSurrogate(body)).toBe(false);
        }
        expect(holdsLoneSurrogate(clipUserWords({ text: text.repeat(4) }, size).text)).toBe(false);
        expect(holdsLoneSurrogate(truncate(text, size))).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
