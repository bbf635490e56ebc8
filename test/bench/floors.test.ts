import { describe, expect, it } from "vitest";
import {
  changedIndexes,
  checkCopyFloor,
  copyFloor,
  FLOOR_HEADERS,
  floorRatioLines,
  floorRows,
  growth,
  growthLine,
  measureFloors,
  medianFloorRow,
  readFloor,
} from "../../bench/floors.js";
import { buildPeerConversation } from "../../bench/peers.js";
import { peerTargets } from "../../bench/targets.js";
import { REDACTION_NOTICE, ThresholdCompactor } from "../../src/index.js";
import { floorRow, peerRow } from "../support/peer-row.js";

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

describe("measureFloors", () => {
  it("times ours and both floors on the peer conversation (no timing assertions)", async () => {
    const row = await measureFloors(400, { warmUps: 0, samples: 2, minWarmUpMs: 0 });
    expect(row.messages).toBe(400);
    for (const timing of [row.ours, row.copy, row.read]) {
      expect(timing.samples).toBe(2);
      expect(Number.isFinite(timing.medianMs)).toBe(true);
    }
  });

  it("keeps the process with the median ours/copy floor ratio, and records every ratio", () => {
    const chosen = medianFloorRow([
      floorRow(10_000, 3, 1),
      floorRow(10_000, 1, 1),
      floorRow(10_000, 4, 2),
    ]);
    expect(chosen.ours.medianMs).toBe(4);
    expect(chosen.processRatios).toEqual([1, 2, 3]);
    expect(floorRatioLines([chosen])).toEqual([
      "10000 messages: ours/copy floor 1.00x, 2.00x, 3.00x in 3 processes (the row is the median one)",
    ]);
    expect(medianFloorRow([floorRow(1000, 1, 1)]).processRatios).toBeUndefined();
    expect(() => medianFloorRow([])).toThrow(/no rows/);
  });
});

describe("growth and the linear target", () => {
  const peers = [
    peerRow({ messages: 10_000, ours: 1, prune: 3 }),
    peerRow({ messages: 100_000, ours: 30, prune: 60 }),
  ];
  const floors = (ours100k: number) => [floorRow(10_000, 1, 0.5), floorRow(100_000, ours100k, 20)];

  it("is each contender's time at 100k over its time at 10k", () => {
    expect(growth(peers, floors(30))).toEqual({
      ours: 30,
      pruneMessages: 20,
      oursBesideFloors: 30,
      copyFloor: 40,
      readFloor: 40,
    });
    expect(growth(peers, undefined)).toBeUndefined();
    expect(growth(peers.slice(0, 1), floors(30))).toBeUndefined();
    expect(growthLine(growth(peers, floors(30))!)).toContain("the copy floor 40.0x");
    expect(floorRows(floors(30))[1]).toHaveLength(FLOOR_HEADERS.length);
    expect(floorRows(floors(30))[1]?.[4]).toBe("1.50x");
  });

  it("passes when ours grows at most 1.5x as much as the copy floor, and fails beyond", () => {
    const linear = (ours100k: number) =>
      peerTargets(peers, floors(ours100k)).find((check) => /linear/.test(check.target));
    expect(linear(30)?.pass).toBe(true);
    // 60x against the floor's 40x: the limit, still linear.
    expect(linear(60)?.pass).toBe(true);
    expect(linear(60)?.measured).toMatch(/^1\.50x as much/);
    expect(linear(61)?.pass).toBe(false);
    expect(peerTargets(peers).some((check) => /linear/.test(check.target))).toBe(false);
  });
});
