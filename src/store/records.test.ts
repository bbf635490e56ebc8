import { describe, expect, expectTypeOf, it } from "vitest";
import type * as z from "zod";
import type { ParsedSnapshot, SessionSnapshotSchema } from "../session/snapshot.js";
import { ConversationBuilder } from "../testing/builders.js";
import {
  decodeHead,
  decodeRecord,
  encodeHead,
  encodeRecord,
  type LogRecord,
  type LogRecordSchema,
  type StoredLogRecord,
} from "./records.js";

const messages = new ConversationBuilder().user("Fix the test").assistant("Fixed.").build();

describe("log and head records", () => {
  it("are pinned to their types: what the schemas parse to is the hand-written type", () => {
    expectTypeOf<z.output<typeof LogRecordSchema>>().toEqualTypeOf<StoredLogRecord>();
    expectTypeOf<z.output<typeof SessionSnapshotSchema>>().toEqualTypeOf<ParsedSnapshot>();
  });

  it("decode what they encode, for every kind", () => {
    const records: LogRecord[] = [
      { kind: "messages", headVersion: 2, messages, pinned: [messages[0]!.id] },
      { kind: "pins", headVersion: 0, messageIds: [messages[1]!.id] },
      { kind: "usage", headVersion: 1, usage: { inputTokens: 10, outputTokens: 2 } },
      { kind: "summaries", headVersion: 3, summaries: { toolu_1: "2 files" } },
    ];
    for (const [seq, record] of records.entries()) {
      expect(decodeRecord("s", seq, encodeRecord(record))).toEqual(record);
    }
    expect(decodeHead("s", encodeHead({ snapshot: {} as never, strippedToolCall: "m" }))).toEqual({
      snapshot: {},
      strippedToolCall: "m",
    });
  });

  it("name the session and the field of a bad record", () => {
    const bad = JSON.stringify({ format: 1, headVersion: -1, kind: "pins", messageIds: ["m"] });
    expect(() => decodeRecord("s", 4, bad)).toThrow(/stored session "s".*log\[4\]\.headVersion/s);
  });
});
