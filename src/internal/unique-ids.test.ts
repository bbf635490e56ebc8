import { describe, expect, it } from "vitest";
import type { Message } from "../core/message.js";
import { duplicateIdIssues } from "./unique-ids.js";

const use = (id: string) => ({ type: "tool_use" as const, id, name: "read", input: {} });
const message = (id: string, ...toolUseIds: string[]): Pick<Message, "id" | "content"> => ({
  id,
  content: toolUseIds.map(use),
});

describe("duplicateIdIssues", () => {
  it("in a list alone, names each message id seen earlier in it, and only message ids", () => {
    expect(duplicateIdIssues([message("a", "t1"), message("b", "t1"), message("a")])).toEqual([
      { path: [2, "id"], message: 'duplicate message id "a"' },
    ]);
  });

  it("joining a conversation, names message ids it holds and the ids of calls still waiting", () => {
    const known = { messageIds: new Set(["a"]), waitingToolUseIds: new Set(["t1"]) };
    expect(
      duplicateIdIssues([message("a"), message("b", "t1", "t2"), message("c", "t2")], known),
    ).toEqual([
      { path: [0, "id"], message: 'duplicate message id "a"' },
      {
        path: [1, "content", 0, "id"],
        message: 'duplicate tool_use id "t1" (its call waits)',
      },
      {
        path: [2, "content", 0, "id"],
        message: 'duplicate tool_use id "t2" (its call waits)',
      },
    ]);
    expect(duplicateIdIssues([message("b", "t2")], known)).toEqual([]);
  });

  it("takes a call's id again once the call is answered (a provider numbering each reply's calls)", () => {
    const result = (id: string, toolUseId: string): Pick<Message, "id" | "content"> => ({
      id,
      content: [{ type: "tool_result", toolUseId, content: "ok", isError: false }],
    });
    const known = { messageIds: new Set<string>(), waitingToolUseIds: ["call_0"] };
    const answered = [result("r1", "call_0"), message("b", "call_0"), result("r2", "call_0")];
    expect(duplicateIdIssues([...answered, message("c", "call_0")], known)).toEqual([]);
    expect(
      duplicateIdIssues([result("r1", "call_0"), message("b", "call_0", "call_0")], known),
    ).toEqual([
      {
        path: [1, "content", 1, "id"],
        message: 'duplicate tool_use id "call_0" (its call waits)',
      },
    ]);
  });
});
