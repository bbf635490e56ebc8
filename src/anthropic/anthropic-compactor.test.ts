import { describe, expect, it } from "vitest";
import { isTrustedCompactor, runCompactor } from "../core/compactor.js";
import { isCompactionBlock, latestRequestIndex } from "../core/conversation-structure.js";
import { CompactionError, ValidationError } from "../core/errors.js";
import { AgentSession } from "../session/agent-session.js";
import { ConversationBuilder } from "../testing/builders.js";
import { type AnthropicCompactionClient, AnthropicCompactor } from "./anthropic-compactor.js";

/** A client answering every compaction request with one signed block, counting the requests. */
function fakeClient(): AnthropicCompactionClient & { requests: unknown[] } {
  const requests: unknown[] = [];
  return {
    requests,
    beta: {
      messages: {
        create: (body: never) => {
          requests.push(body);
          return Promise.resolve({
            content: [{ type: "compaction", content: "The user asked to read every file." }],
            stop_reason: "compaction",
            usage: { input_tokens: 0, output_tokens: 0 },
          });
        },
      },
    },
  };
}

/** One request, then a long tool loop answering it. */
function oneRequest() {
  const builder = new ConversationBuilder().user("Read every file.");
  for (let call = 0; call < 6; call += 1) {
    builder.toolCall({ name: "read", input: { file: `f${call}.ts` }, result: "x".repeat(800) });
  }
  return builder.assistant("Done.").build();
}

describe("AnthropicCompactor as a compactor of ours", () => {
  it("is trusted: the session runs it as it runs the built-in compactors", () => {
    const compactor = new AnthropicCompactor({ client: fakeClient(), model: "claude-fable-5-1" });
    expect(isTrustedCompactor(compactor)).toBe(true);
    expect(compactor.shouldCompact(760, 1000)).toBe(true);
    expect(compactor.shouldCompact(750, 1000)).toBe(false);
  });

  it("keeps the user's latest request in the session's run when a cut before it exists, else folds it into the block", async () => {
    const conversation = oneRequest();
    const compactor = new AnthropicCompactor({ client: fakeClient(), model: "claude-fable-5-1" });
    // The public method cuts as late as the API's rules allow (past the lone request).
    const direct = await compactor.compactAsync(conversation, new Map(), { trigger: "manual" });
    expect(direct.conversation.length).toBeLessThan(conversation.length);
    const request = conversation[latestRequestIndex(conversation)]!;
    expect(direct.conversation).not.toContain(request);
    // The session's run: one long turn has no cut before its request, so a /compact folds it
    // too (the signed block holds it) rather than doing nothing.
    const trusted = await runCompactor(compactor, conversation, new Map(), { trigger: "manual" });
    expect(trusted.conversation).toEqual(
      direct.conversation.map((message, index) =>
        index === 0 ? trusted.conversation[0] : message,
      ),
    );
    expect(trusted.conversation.length).toBeLessThan(conversation.length);
  });

  it("keeps the user's request, not the library's continuation after it, as the latest request", async () => {
    // The pair the session writes when a compaction strips the thinking of an open tool
    // exchange ("[Context compacted; continuing the task.]", "Continue."): the library's words.
    const builder = new ConversationBuilder().user("Read every file. Never touch tests/.");
    for (let call = 0; call < 4; call += 1)
      builder.toolCall({ name: "read", input: { file: `f${call}.ts` }, result: "x".repeat(800) });
    builder.assistant("[Context compacted; continuing the task.]").user("Continue.");
    for (let call = 4; call < 8; call += 1)
      builder.toolCall({ name: "read", input: { file: `f${call}.ts` }, result: "x".repeat(800) });
    const conversation = builder
      .build()
      .map((message, index) =>
        index === 9 || index === 10 ? { ...message, generated: "continuation" as const } : message,
      );
    const request = conversation[0]!;
    expect(latestRequestIndex(conversation)).toBe(0);
    const client = fakeClient();
    const compactor = new AnthropicCompactor({ client, model: "claude-fable-5-1" });
    const { conversation: out } = await runCompactor(compactor, conversation, new Map(), {
      trigger: "auto",
      contextLimit: 4_000,
      contextUsed: 3_900,
    });
    // One long turn has no cut before its request: it is folded inside the turn, the user's
    // request (not the continuation) kept verbatim right after the block.
    expect(client.requests).toHaveLength(1);
    expect(isCompactionBlock(out[0]!.content[0])).toBe(true);
    expect(out[1]).toBe(request);
    expect(out.filter((message) => message === request)).toHaveLength(1);
    expect(out.length).toBeLessThan(conversation.length);
  });

  it("lands a manual compaction in a session without being refused", async () => {
    const client = fakeClient();
    const session = new AgentSession({
      contextLimit: 100_000,
      compactor: false,
      sessionId: "session-test",
      llmCompactor: new AnthropicCompactor({ client, model: "claude-fable-5-1" }),
    });
    session.append(
      ...new ConversationBuilder()
        .user("Read the old files.")
        .assistant("Read them.")
        .user("Now read every file.")
        .assistant("Done.")
        .build(),
    );
    await expect(session.forceCompact()).resolves.toMatchObject({ turnsCompacted: 1 });
    expect(client.requests).toHaveLength(1);
    expect(session.messages.some((message) => message.role === "user")).toBe(true);
  });

  it("still checks the arguments of its public method", async () => {
    const compactor = new AnthropicCompactor({ client: fakeClient(), model: "claude-fable-5-1" });
    await expect(compactor.compactAsync([{}] as never, new Map())).rejects.toThrow(ValidationError);
    await expect(
      compactor.compactAsync(oneRequest(), new Map(), { signal: AbortSignal.abort() }),
    ).rejects.toSatisfy((error) => CompactionError.isInstance(error));
  });
});
