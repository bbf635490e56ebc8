import { load } from "@langchain/core/load";
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  ToolMessage,
} from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { fileText, pairingProblems } from "../../test/support/langchain-anthropic.js";
import { AgentSession } from "../session/agent-session.js";
import { MemoryArchive } from "../store/index.js";
import { compactLangChainMessages, fromLangChainMessages, toLangChainMessages } from "./index.js";
import { STALE_USAGE_KEY } from "./stale-usage.js";

// A reply the output keeps is the caller's own object, its `usage_metadata` counted before the
// compaction. Found by a review: the output compacted again at the same window (a node that
// runs twice, a retry) measured that old figure and compacted again every time until the model
// answered, removing messages that fit, the model's last answer among them.

const LIMIT = 6_000;
const ANSWER = "Here is what the files do: each exports one function.";

const usage = (input: number) =>
  ({ input_tokens: input, output_tokens: 20, total_tokens: input + 20 }) as never;

/** Six reads of 3,000 characters, the model's answer (its prompt `answerTokens`), a request. */
function history(answerTokens: number): BaseMessage[] {
  const messages: BaseMessage[] = [new HumanMessage({ content: "Read the files.", id: "ask" })];
  for (let step = 0; step < 6; step += 1) {
    const id = `call_${step}`;
    messages.push(
      new AIMessage({
        id: `reply_${step}`,
        content: "",
        tool_calls: [{ id, name: "read_file", args: { path: `f${step}.ts` }, type: "tool_call" }],
        usage_metadata: usage(100 + step * 800),
      }),
      new ToolMessage({
        content: fileText(`f${step}.ts`),
        tool_call_id: id,
        name: "read_file",
        id: `result_${step}`,
      }),
    );
  }
  messages.push(
    new AIMessage({ id: "answer", content: ANSWER, usage_metadata: usage(answerTokens) }),
    new HumanMessage({ content: "Now summarize.", id: "next" }),
  );
  return messages;
}

/** `messages` compacted at {@link LIMIT}, with a shared archive. */
const compact = (messages: BaseMessage[], archive: MemoryArchive, contextUsed?: number) =>
  compactLangChainMessages(messages, {
    contextLimit: LIMIT,
    archive,
    ...(contextUsed === undefined ? {} : { contextUsed }),
  });

const texts = (messages: readonly BaseMessage[]) => messages.map((message) => message.text);

/** Each message of `out` not `given`'s is marked with the number of AI messages from it on. */
function expectMarks(out: readonly BaseMessage[], given: readonly BaseMessage[]): number {
  const written = out.filter((message) => !given.includes(message));
  for (const message of written) {
    const replies = out.slice(out.indexOf(message)).filter((each) => each.type === "ai").length;
    expect(message.additional_kwargs[STALE_USAGE_KEY]).toBe(replies === 0 ? undefined : replies);
  }
  return written.length;
}

describe("compactLangChainMessages on its own output", () => {
  // 6,100: the old results masked, nothing removed; 7,000: older messages removed for a notice.
  for (const answerTokens of [6_100, 7_000])
    it(`gives it back as it is at the same window (the answer counted ${answerTokens})`, async () => {
      const archive = new MemoryArchive();
      const first = await compact(history(answerTokens), archive);
      expect(first.compacted).toBe(true);
      expect(texts(first.messages)).toContain(ANSWER);
      const again = await compact(first.messages, archive);
      // Before: measured at the answer's old figure (6,132 or 7,032) and compacted again.
      expect(again.contextUsed).toBeLessThan((first.result.tokensAfter ?? 0) + 200);
      expect(again.compacted).toBe(false);
      expect(again.messages).toBe(first.messages);
      expect(texts(again.messages)).toContain(ANSWER);
    });

  it("reads a reply the model gave after the compaction: its usage is the measure", async () => {
    const archive = new MemoryArchive();
    const { messages } = await compact(history(7_000), archive);
    const next = (input: number) => [
      ...messages,
      new AIMessage({
        id: "summary",
        content: "Each file exports one handler.",
        usage_metadata: usage(input),
      }),
      new HumanMessage({ content: "Thanks. Now the tests.", id: "tests" }),
    ];
    // Near the window by the provider's count (a system prompt, tools): compacted again.
    const near = await compact(next(5_900), archive);
    expect(near.contextUsed).toBeGreaterThanOrEqual(5_900);
    expect(near.compacted).toBe(true);
    expect(pairingProblems(near.messages)).toEqual([]);
    // Well inside: the reply's figure and what came after it, nothing changed.
    const inside = await compact(next(3_000), archive);
    expect(inside.contextUsed).toBeGreaterThanOrEqual(3_000);
    expect(inside.contextUsed).toBeLessThan(3_100);
    expect(inside.compacted).toBe(false);
    // And that output is a fixed point too: the new reply's mark counts it.
    const twice = await compact(near.messages, archive);
    expect(twice.compacted).toBe(false);
    expect(twice.messages).toBe(near.messages);
  });

  it("takes the caller's contextUsed over any reply's", async () => {
    const archive = new MemoryArchive();
    const { messages } = await compact(history(7_000), archive);
    const told = await compact(messages, archive, 5_900);
    expect([told.contextUsed, told.compacted]).toEqual([5_900, true]);
    const fresh = [
      ...messages,
      new AIMessage({ content: "Done.", usage_metadata: usage(5_900) }),
      new HumanMessage("And now?"),
    ];
    const low = await compact(fresh, archive, 2_500);
    expect([low.contextUsed, low.compacted]).toEqual([2_500, false]);
  });

  it("keeps the behaviour through LangChain's serialization (a checkpoint restored)", async () => {
    const archive = new MemoryArchive();
    const first = await compact(history(7_000), archive);
    const stored = JSON.parse(JSON.stringify(mapChatMessagesToStoredMessages(first.messages)));
    const serialized = JSON.stringify(first.messages);
    for (const restored of [
      mapStoredMessagesToChatMessages(stored),
      await load<BaseMessage[]>(serialized),
    ]) {
      expect(restored.map((message) => message.type)).toEqual(
        first.messages.map((message) => message.type),
      );
      const again = await compact(restored, archive);
      expect(again.compacted).toBe(false);
      expect(again.messages).toBe(restored);
      const answered = await compact(
        [...restored, new AIMessage({ content: "Done.", usage_metadata: usage(5_900) })],
        archive,
      );
      expect(answered.contextUsed).toBeGreaterThanOrEqual(5_900);
    }
  });

  it("marks only the messages it wrote, never the caller's objects", async () => {
    const messages = history(6_100);
    const masked = messages[2] as ToolMessage;
    masked.additional_kwargs = { trace: "t-2" };
    const before = JSON.stringify(messages);
    const { messages: out } = await compact(messages, new MemoryArchive());
    expect(JSON.stringify(messages)).toBe(before);
    expect(expectMarks(out, messages)).toBeGreaterThan(0);
    // The masked result keeps its own fields beside the mark.
    const rebuilt = out.find((message) => (message as ToolMessage).tool_call_id === "call_0");
    expect(rebuilt?.additional_kwargs).toEqual({ trace: "t-2", [STALE_USAGE_KEY]: 6 });
  });

  // An agent's loop compacting before each call, as a LangGraph node writing the output back:
  // the model's reply counts what it was sent (and a system prompt, tools), the output compacted again
  // at once is a fixed point, and the marks of earlier compactions never hide a later reply.
  it("stays a fixed point over a loop that compacts before every call", async () => {
    const archive = new MemoryArchive();
    let messages: BaseMessage[] = [new HumanMessage("Read every file.")];
    let compactions = 0;
    for (let step = 0; step < 30; step += 1) {
      const sent = JSON.stringify(messages.map((message) => message.content)).length;
      const id = `loop_${step}`;
      messages = [
        ...messages,
        new AIMessage({
          content: `Reading f${step}.ts.`,
          tool_calls: [{ id, name: "read_file", args: { path: `f${step}.ts` }, type: "tool_call" }],
          usage_metadata: usage(2_500 + Math.round(sent / 4)),
        }),
        new ToolMessage({ content: fileText(`f${step}.ts`, 1_500), tool_call_id: id }),
      ];
      const once = await compact(messages, archive);
      if (once.compacted) compactions += 1;
      // A mark an earlier compaction left on a message rebuilt now is written anew.
      expectMarks(once.messages, messages);
      const again = await compact(once.messages, archive);
      expect(again.compacted).toBe(false);
      expect(again.messages).toBe(once.messages);
      messages = once.messages;
    }
    expect(compactions).toBeGreaterThan(3);
  });
});

// Review 58c: a session's compaction left the last reply's usage_metadata unmarked in
// toLangChainMessages' output, and compactLangChainMessages on it measured that old figure and
// compacted again (the workaround was passing contextUsed).
describe("toLangChainMessages of a session that compacted", () => {
  /** A session holding `history(answerTokens)`, its usage recorded, compacted if due. */
  async function sessionOf(answerTokens: number): Promise<AgentSession> {
    const session = new AgentSession({ contextLimit: LIMIT });
    session.append(
      ...fromLangChainMessages(history(answerTokens), { sessionId: session.sessionId }),
    );
    session.recordUsage({ inputTokens: answerTokens, outputTokens: 20 });
    await session.maybeCompact();
    return session;
  }

  it("marks the replies from the first compacted message on: the helper does not compact again", async () => {
    const session = await sessionOf(5_000);
    expect(session.contextUsed).toBeLessThan(0.75 * LIMIT);
    const out = toLangChainMessages(session.messages);
    const again = await compactLangChainMessages(out, { contextLimit: LIMIT });
    // Before: measured at the answer's old 5,032 and compacted again.
    expect(again.contextUsed).toBeLessThan(0.75 * LIMIT);
    expect(again.compacted).toBe(false);
    expect(again.messages).toBe(out);
    // The first reply was sent nothing the compaction changed: unmarked; the masked result after it is.
    expect(out[1]!.additional_kwargs[STALE_USAGE_KEY]).toBeUndefined();
    expect(out[2]!.additional_kwargs[STALE_USAGE_KEY]).toBe(6);
  });

  it("trusts a reply given after the output, and marks nothing of a session that never compacted", async () => {
    const out = toLangChainMessages((await sessionOf(5_000)).messages);
    const answered = [...out, new AIMessage({ content: "Done.", usage_metadata: usage(4_700) })];
    const measured = await compactLangChainMessages(answered, { contextLimit: LIMIT });
    expect(measured.contextUsed).toBeGreaterThanOrEqual(4_700);
    const quiet = await sessionOf(3_000);
    const kept = toLangChainMessages(quiet.messages);
    expect(kept.some((message) => STALE_USAGE_KEY in message.additional_kwargs)).toBe(false);
    const trusted = await compactLangChainMessages(kept, { contextLimit: LIMIT });
    expect(trusted.contextUsed).toBeGreaterThanOrEqual(3_000);
  });
});
