import { describe, expect, it } from "vitest";
import { ConversationBuilder } from "../testing/index.js";
import { extractTurnIds } from "./turn.js";

describe("extractTurnIds", () => {
  it("lists unique turn ids in order of first appearance", () => {
    const messages = new ConversationBuilder()
      .inTurn({ owner: "a", number: 2 })
      .assistant("x")
      .inTurn({ owner: "b", number: 1 })
      .assistant("y")
      .inTurn({ owner: "a", number: 2 })
      .assistant("z")
      .build();
    expect(extractTurnIds(messages)).toEqual([
      { owner: "a", number: 2 },
      { owner: "b", number: 1 },
    ]);
    expect(extractTurnIds([])).toEqual([]);
  });
});
