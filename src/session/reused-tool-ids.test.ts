import { describe, expect, it } from "vitest";
import { responsesInputProblem } from "../../test/support/openai-responses-server.js";
import { appendChatCompletion, toChatMessages } from "../chat-completions/index.js";
import { ThresholdCompactor } from "../compactors/threshold-compactor.js";
import { toResponsesInput } from "../openai/responses-output.js";
import { AgentSession } from "./agent-session.js";

/**
 * Providers that number each reply's calls (OpenAI-compatible hosts: `call_0` every time) reuse
 * a call's id once it is answered. The session refused the second `call_0` as a duplicate, so
 * `appendChatCompletion` threw on the second turn.
 */

function completion(turn: number) {
  const call = { id: "call_0", type: "function", function: { name: "ls", arguments: "{}" } };
  return {
    id: `chatcmpl-${turn}`,
    object: "chat.completion",
    created: 0,
    model: "local-model",
    choices: [
      {
        index: 0,
        finish_reason: "tool_calls",
        message: { role: "assistant", content: null, tool_calls: [call] },
      },
    ],
  };
}

/** A session of two turns, each a `call_0` answered by `files <turn>`, summarized `ls <turn>`. */
function twoTurns(): AgentSession {
  const session = new AgentSession({ contextLimit: 100_000 });
  for (const turn of [1, 2]) {
    session.addUserText(`list the files, ${turn}`);
    appendChatCompletion(session, completion(turn) as never);
    session.addToolResults([
      {
        type: "tool_result",
        toolUseId: "call_0",
        content: `files ${turn}`,
        compactSummary: `ls ${turn}`,
      },
    ]);
  }
  return session;
}

describe("a tool call id used again once its call is answered", () => {
  it("is taken, each call answered by its own results, and written back as it came", () => {
    const session = twoTurns();
    const written = toChatMessages(session.messages);
    const calls = written.flatMap((message) =>
      message.role === "assistant" ? (message.tool_calls ?? []).map((call) => call.id) : [],
    );
    const results = written.flatMap((message) =>
      message.role === "tool" ? [`${message.tool_call_id} ${message.content}`] : [],
    );
    expect(calls).toEqual(["call_0", "call_0"]);
    expect(results).toEqual(["call_0 files 1", "call_0 files 2"]);
    // The summary kept by the id is the latest call's; each result masks to its own.
    expect(session.compactSummaries.get("call_0")).toBe("ls 2");
    session.addUserText("thanks");
    const masked = new ThresholdCompactor({ toolCompaction: "summarize", keepRecentTurns: 1 });
    const { conversation } = masked.compact(session.messages, session.compactSummaries);
    const texts = conversation.flatMap((message) =>
      message.content.flatMap((block) =>
        block.type === "tool_result" && typeof block.content === "string" ? [block.content] : [],
      ),
    );
    expect(texts).toEqual([expect.stringContaining("ls 1"), expect.stringContaining("ls 2")]);
  });

  it("is refused while its call still waits, naming the field, nothing appended", () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("list the files");
    appendChatCompletion(session, completion(1) as never);
    const before = session.messages;
    expect(() => appendChatCompletion(session, completion(2) as never)).toThrow(
      /duplicate tool_use id "call_0" \(a call still waiting for its result has it\)/,
    );
    expect(session.messages).toBe(before);
  });
});

describe("a session with a reused call id, sent to another provider", () => {
  it("goes to the Responses API with each call_id answered once", () => {
    const input = toResponsesInput(twoTurns().messages);
    const pairs = input.flatMap((item) =>
      item.type === "function_call"
        ? [`call ${item.call_id}`]
        : item.type === "function_call_output"
          ? [`output ${item.call_id} ${String(item.output)}`]
          : [],
    );
    expect(pairs).toEqual([
      "call call_0",
      "output call_0 files 1",
      "call call_0_2",
      "output call_0_2 files 2",
    ]);
    const issued = { encrypted: new Map(), requiresReasoning: new Map() };
    expect(responsesInputProblem(input, issued)).toBeUndefined();
  });
});
