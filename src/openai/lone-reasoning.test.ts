import type { ResponseInputItem } from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import { answeringResponsesApi } from "../../test/support/answering-responses-api.js";
import type { ContentBlock, Message } from "../core/message.js";
import { AgentSession, validateConversation } from "../index.js";
import { fromResponsesInput } from "./responses-input.js";
import { toResponsesInput } from "./responses-output.js";

// The Responses API refuses a reasoning item "provided without its required following item":
// `toResponsesInput` never writes one, whatever the messages hold.

const MODEL = "gpt-5.6-luna";
const user = (text: string) =>
  ({ type: "message", role: "user", content: [{ type: "input_text", text }] }) as const;

describe("toResponsesInput leaves out a lone reasoning item", () => {
  const api = answeringResponsesApi();

  const send = (input: ResponseInputItem[]) => api.client.responses.create({ model: MODEL, input });
  const reasoning = (id: string) => ({
    type: "reasoning" as const,
    id,
    summary: [],
    encrypted_content: api.server.encrypt(id),
  });
  const types = (input: ResponseInputItem[]) => input.map((item) => item.type ?? "message");
  const openaiProblems = (messages: readonly Message[]) =>
    validateConversation(messages, { provider: "openai" }).map((problem) => problem.code);

  it("between two user messages: read back, it is left out and the API takes the input", async () => {
    const messages = fromResponsesInput([user("hi"), reasoning("rs_1"), user("again")]);
    expect(openaiProblems(messages)).toEqual(["reasoning_without_following_item"]);
    const input = toResponsesInput(messages);
    await expect(send(input)).resolves.toMatchObject({ status: "completed" });
    expect(api.server.refusals).toEqual([]);
    expect(types(input)).toEqual(["message", "message"]);
  });

  it("last in the input (a session whose last reply is a lone reasoning item)", async () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("go");
    session.addAssistant([{ type: "opaque", block: reasoning("rs_2") }]);
    const input = toResponsesInput(session.messages);
    await expect(send(input)).resolves.toMatchObject({ status: "completed" });
    expect(types(input)).toEqual(["message"]);

    const appended = new AgentSession({ contextLimit: 100_000 });
    appended.append(...fromResponsesInput([user("go"), reasoning("rs_3")]));
    await send(toResponsesInput(appended.messages));
    expect(api.server.refusals).toEqual([]);
    expect(types(toResponsesInput(appended.messages))).toEqual(["message"]);
  });

  it("keeps reasoning with the item after it, and leaves out what the validity rules name", async () => {
    const call: ContentBlock = { type: "tool_use", id: "call_1", name: "read", input: {} };
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("go");
    // Kept: followed by its call. Left out: followed by thinking (never sent), by a compaction
    // item, by another reasoning item, or last in its message.
    session.addAssistant([{ type: "opaque", block: reasoning("rs_4") }, call]);
    session.addToolResults([
      { type: "tool_result", toolUseId: "call_1", content: "a", isError: false },
    ]);
    session.addAssistant([
      { type: "opaque", block: reasoning("rs_5") },
      { type: "thinking", thinking: "t", signature: "s" },
      { type: "opaque", block: reasoning("rs_6") },
      { type: "opaque", block: reasoning("rs_7") },
      { type: "text", text: "Done." },
      { type: "opaque", block: reasoning("rs_8") },
    ]);
    session.addUserText("thanks");
    const input = toResponsesInput(session.messages);
    await expect(send(input)).resolves.toMatchObject({ status: "completed" });
    expect(api.server.refusals).toEqual([]);
    const written = input.flatMap((item) => (item.type === "reasoning" ? [item.id] : []));
    expect(written).toEqual(["rs_4", "rs_7"]);
    // The writer and validateConversation agree: each reasoning block the rules name is left out.
    const named = validateConversation(session.messages, { provider: "openai" })
      .filter((problem) => problem.code === "reasoning_without_following_item")
      .map((problem) => {
        const block = session.messages[problem.messageIndex!]!.content[problem.blockIndex!];
        return block?.type === "opaque" ? block.block["id"] : undefined;
      });
    expect(named).toEqual(["rs_5", "rs_6", "rs_8"]);
  });
});
