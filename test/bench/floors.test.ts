import { describe, expect, it } from "vitest";
import {
  changedIndexes,
  checkCopyFloor,
  copyFloor,
  FLOOR_HEADERS,
  floorRows,
  growth,
  growthLine,
  readFloor,
} from "../../bench/floors.js";
import { buildPeerConversation, type PeerRow } from "../../bench/peers.js";
import { peerTargets } from "../../bench/targets.js";
import { REDACTION_NOTICE, ThresholdCompactor } from "../../src/index.js";
import { peerRow } from "../support/peer-row.js";

describe("the floors", () => {
  const conversation = buildPeerConversation(400);
  const ours = new ThresholdCompactor({ toolCompaction: "redact" }).compact(
    conversation,
    new Map(),
  ).conversation;

  it("the copy floor leaves exactly what ThresholdCompactor leaves, and no more", () => {
    const indexes = checkCopyFloor(conversation, ours);
    expect(indexes.length).toBeGreaterThan(50);
    expect(indexes).toEqual(changedIndexes(conversation, ours));
    const floor = copyFloor(conversation, indexes);
    expect(floor).toEqual(ours);
    expect(floor[indexes[0]!]?.content[0]).toMatchObject({ content: REDACTION_NOTICE });
    // Messages it does not copy are the originals.
    expect(floor.at(-1)).toBe(conversation.at(-1));
  });

  it("refuses to stand for a job ours did not do", () => {
    // Every message differs (its id), so the floor copies each one, keeping the old ids.
    const other = buildPeerConversation(400).map((message) => ({
      ...message,
      id: `x${message.id}`,
    }));
    expect(() => checkCopyFloor(conversation, other)).toThrow(/does not leave/);
  });

  it("the read floor reads every older tool result's turn", () => {
    const expected = conversation
      .slice(0, 100)
      .filter((message) => message.role === "user" && message.content[0]?.type === "tool_result")
      .reduce((sum, message) => sum + message.turnId.number, 0);
    expect(readFloor(conversation, 100)).toBe(expected);
  });
});

describe("growth and the linear target", () => {
  const row = (messages: number, ours: number, copyFloor: number): PeerRow =>
    peerRow({ messages, ours, prune: ours * 3, copyFloor, readFloor: copyFloor / 2 });

  it("is each contender's time at 100k over its time at 10k", () => {
    const rows = [row(10_000, 1, 0.5), row(100_000, 30, 20)];
    expect(growth(rows)).toEqual({
      ours: 30,
      pruneMessages: 30,
      oursBesideFloors: 30,
      copyFloor: 40,
      readFloor: 40,
    });
    expect(growth(rows.slice(0, 1))).toBeUndefined();
    expect(growthLine(growth(rows)!)).toContain("the copy floor 40.0x");
    expect(floorRows(rows)[1]).toHaveLength(FLOOR_HEADERS.length);
    expect(floorRows(rows)[1]?.[4]).toBe("1.50x");
  });

  it("passes when ours grows at most 1.5x as much as the copy floor, and fails beyond", () => {
    const linear = (rows: PeerRow[]) =>
      peerTargets(rows).find((check) => /linear/.test(check.target));
    expect(linear([row(10_000, 1, 0.5), row(100_000, 30, 20)])?.pass).toBe(true);
    // 60x against the floor's 40x: the limit, still linear.
    expect(linear([row(10_000, 1, 0.5), row(100_000, 60, 20)])?.pass).toBe(true);
    expect(linear([row(10_000, 1, 0.5), row(100_000, 60, 20)])?.measured).toMatch(
      /^1\.50x as much/,
    );
    expect(linear([row(10_000, 1, 0.5), row(100_000, 61, 20)])?.pass).toBe(false);
  });
});
