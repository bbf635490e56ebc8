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

  it("joining a conversation, names message and tool_use ids it holds or seen earlier", () => {
    const known = { messageIds: new Set(["a"]), toolUseIds: new Set(["t1"]) };
    expect(
      duplicateIdIssues([message("a"), message("b", "t1", "t2"), message("c", "t2")], known),
    ).toEqual([
      { path: [0, "id"], message: 'duplicate message id "a"' },
      {
        path: [1, "content", 0, "id"],
        message: 'duplicate tool_use id "t1" (`tool_use` ids must be unique)',
      },
      {
        path: [2, "content", 0, "id"],
        message: 'duplicate tool_use id "t2" (`tool_use` ids must be unique)',
      },
    ]);
    expect(duplicateIdIssues([message("b", "t2")], known)).toEqual([]);
  });
});
