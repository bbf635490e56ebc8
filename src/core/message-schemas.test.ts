import { describe, expect, it } from "vitest";
import { ConversationBuilder } from "../testing/builders.js";
import {
  LenientMessageSchema,
  MessageSchema,
  SerializedMessageSchema,
  UserMessageSchema,
} from "./schemas.js";

const [message] = new ConversationBuilder().user("Fix the failing test").build();

describe("the message shapes, from one definition", () => {
  it("read the same message the same way", () => {
    const serialized = JSON.parse(JSON.stringify(message));
    expect(MessageSchema.parse(message)).toEqual(message);
    expect(UserMessageSchema.parse(message)).toEqual(message);
    expect(LenientMessageSchema.parse(message)).toEqual(message);
    expect(SerializedMessageSchema.parse(serialized)).toEqual(message);
  });

  it("differ only where they are meant to: empty content, and the date's form", () => {
    const empty = { ...message, content: [] };
    expect(MessageSchema.safeParse(empty).success).toBe(false);
    expect(LenientMessageSchema.safeParse(empty).success).toBe(true);
    expect(SerializedMessageSchema.safeParse(message).success).toBe(false);
  });

  it("check every field in each shape (generated included)", () => {
    const bad = { ...message, generated: "bogus", sessionId: "" };
    for (const schema of [MessageSchema, LenientMessageSchema]) {
      const issues = schema.safeParse(bad).error?.issues.map((issue) => issue.path.join("."));
      expect(issues).toEqual(expect.arrayContaining(["sessionId", "generated"]));
    }
    const serialized = { ...JSON.parse(JSON.stringify(message)), generated: "bogus" };
    expect(SerializedMessageSchema.safeParse(serialized).success).toBe(false);
  });
});
