import { describe, expect, it } from "vitest";
import { conversation } from "../../test/support/role-conversation.js";
import { textBlock, toolResultBlock, toolUseBlock } from "../testing/index.js";
import { withDistinctToolIds } from "./distinct-tool-ids.js";
import type { Message } from "./message.js";

const ids = (messages: readonly Message[]) =>
  messages.flatMap((message) =>
    message.content.flatMap((block) =>
      block.type === "tool_use"
        ? [`use ${block.id} ${block.name}`]
        : block.type === "tool_result"
          ? [`result ${block.toolUseId}`]
          : [],
    ),
  );

describe("withDistinctToolIds", () => {
  it("sends an answered call's id given again as <id>_<n>, with its results", () => {
    const messages = conversation(
      ["user", [textBlock("go")]],
      ["assistant", [toolUseBlock("c", "grep")]],
      ["user", [toolResultBlock("c", "a")]],
      ["assistant", [toolUseBlock("c", "read")]],
      ["user", [toolResultBlock("c", "b")]],
    );
    expect(ids(withDistinctToolIds(messages))).toEqual([
      "use c grep",
      "result c",
      "use c_2 read",
      "result c_2",
    ]);
  });

  it("leaves a result with the latest call of its id when the renamed one was left waiting", () => {
    // Found by the AI SDK's round-trip property: the result of the third `c` went as `c_2`,
    // the call left waiting, and took its tool name.
    const messages = conversation(
      ["user", [textBlock("go")]],
      ["assistant", [toolUseBlock("c", "grep")]],
      ["user", [toolResultBlock("c", "a")]],
      ["assistant", [toolUseBlock("c", "read")]],
      ["assistant", [toolUseBlock("c", "grep")]],
      ["user", [toolResultBlock("c", "b")]],
    );
    expect(ids(withDistinctToolIds(messages))).toEqual([
      "use c grep",
      "result c",
      "use c_2 read",
      "use c grep",
      "result c",
    ]);
  });
});

describe("withDistinctToolIds on a growing conversation (review 57d)", () => {
  it("names each call from the calls before it: a request sends the one before it unchanged", () => {
    // A provider numbering its calls gave the id the reuse was renamed to (`c_2`): that later
    // call is renamed, not the earlier one, which the request before had sent as `c_2`.
    const messages = conversation(
      ["user", [textBlock("go")]],
      ["assistant", [toolUseBlock("c", "grep")]],
      ["user", [toolResultBlock("c", "a")]],
      ["assistant", [toolUseBlock("c", "read")]],
      ["user", [toolResultBlock("c", "b")]],
      ["assistant", [toolUseBlock("c_2", "ls")]],
      ["user", [toolResultBlock("c_2", "c")]],
    );
    const before = ids(withDistinctToolIds(messages.slice(0, 5)));
    const after = ids(withDistinctToolIds(messages));
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after).toEqual([
      "use c grep",
      "result c",
      "use c_2 read",
      "result c_2",
      "use c_2_2 ls",
      "result c_2_2",
    ]);
  });
});
