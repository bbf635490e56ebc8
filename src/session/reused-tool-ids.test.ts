import { describe, expect, it } from "vitest";
import { responsesInputProblem } from "../../test/support/openai-responses-server.js";
import { appendChatCompletion, toChatMessages } from "../chat-completions/index.js";
import { ThresholdCompactor } from "../compactors/threshold-compactor.js";
import { formatTranscript } from "../compactors/transcript.js";
import { toResponsesInput } from "../openai/responses-output.js";
import { AgentSession } from "./agent-session.js";
import { archivedOriginals } from "./archive.js";

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
  it("is taken, each call answered by its own results, and sent again as `<id>_<n>`", () => {
    const session = twoTurns();
    const written = toChatMessages(session.messages);
    const calls = written.flatMap((message) =>
      message.role === "assistant" ? (message.tool_calls ?? []).map((call) => call.id) : [],
    );
    const results = written.flatMap((message) =>
      message.role === "tool" ? [`${message.tool_call_id} ${message.content}`] : [],
    );
    // The API refuses a `tool_call_id` twice in a request: the second call goes as its 2nd use.
    expect(calls).toEqual(["call_0", "call_0_2"]);
    expect(results).toEqual(["call_0 files 1", "call_0_2 files 2"]);
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
      /duplicate tool_use id "call_0" \(its call waits\)/,
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

// Review 53's findings 4 and 5: the summaries and originals kept by call id were the later
// call's for both results.
describe("summaries and originals of a call id used twice", () => {
  function rmThenLs(firstHasOwn: boolean): AgentSession {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("delete the temp files");
    appendChatCompletion(session, completion(1) as never);
    session.addToolResults([
      {
        type: "tool_result",
        toolUseId: "call_0",
        content: `removed 14 files: ${"tmp/x.o ".repeat(200)}`,
        ...(firstHasOwn ? { compactSummary: "rm: 14 files removed" } : {}),
      },
    ]);
    session.addUserText("now list what is left");
    appendChatCompletion(session, completion(2) as never);
    session.addToolResults([
      {
        type: "tool_result",
        toolUseId: "call_0",
        content: `a.ts b.ts ${"pad ".repeat(300)}`,
        compactSummary: "ls: 2 files (a.ts, b.ts)",
      },
    ]);
    session.addUserText("thanks");
    return session;
  }

  it("masking gives the earlier result its own summary, or none: never the later call's", () => {
    for (const firstHasOwn of [false, true]) {
      const session = rmThenLs(firstHasOwn);
      const masking = new ThresholdCompactor({ toolCompaction: "summarize", keepRecentTurns: 1 });
      const { conversation } = masking.compact(session.messages, session.compactSummaries);
      const [first] = conversation.flatMap((message) =>
        message.content.flatMap((block) => (block.type === "tool_result" ? [block.content] : [])),
      );
      if (firstHasOwn) expect(first).toContain("rm: 14 files removed");
      else expect(first).toContain("removed 14 files");
      expect(first).not.toContain("ls: 2 files");
    }
  });

  it("the summarizer's transcript shows each result's own summary", () => {
    const session = rmThenLs(true);
    const transcript = formatTranscript(session.messages, session.compactSummaries, {
      maxChars: 10_000,
      maxToolInputChars: 1_000,
      maxToolResultChars: 1_000,
    });
    expect(transcript).toContain("(compact summary) rm: 14 files removed");
    expect(transcript).toContain("(compact summary) ls: 2 files (a.ts, b.ts)");
  });

  it("archivedOriginals leaves out an id two placeholders share", async () => {
    const originals = await archivedOriginals(
      [
        placeholderOf("m1", "[recall r1-aaaa]"),
        placeholderOf("m2", "[recall r2-bbbb]"),
        placeholderOf("m3", "[recall r3-cccc]", "call_9"),
      ],
      (handle) =>
        ({
          kind: "tool_result",
          handle,
          original: { type: "tool_result", toolUseId: "x", content: handle, isError: false },
        }) as never,
    );
    expect([...originals.keys()]).toEqual(["call_9"]);
  });
});

function placeholderOf(id: string, text: string, toolUseId = "call_0") {
  return {
    id,
    sessionId: "s",
    role: "user" as const,
    turnId: { owner: "u", number: 1 },
    createdAt: new Date(0),
    content: [{ type: "tool_result" as const, toolUseId, content: text, isError: false }],
  };
}
