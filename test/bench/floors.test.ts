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
  it("times ours beside each floor on the peer conversation (no timing assertions)", async () => {
    const row = await measureFloors(400, { warmUps: 0, samples: 2, minWarmUpMs: 0 });
    expect(row.messages).toBe(400);
    for (const timing of [row.ours, row.copy, row.oursAgain, row.read]) {
      expect(timing.samples).toBe(2);
      expect(Number.isFinite(timing.medianMs)).toBe(true);
    }
  });

  it("keeps the process with the median ours/copy floor ratio, and records both ratios of each", () => {
    const chosen = medianFloorRow([
      floorRow(10_000, 3, 1, 2, 1),
      floorRow(10_000, 1, 1, 3, 1),
      floorRow(10_000, 4, 2, 1, 1),
    ]);
    expect(chosen.ours.medianMs).toBe(4);
    expect(chosen.processRatios).toEqual([1, 2, 3]);
    expect(chosen.againRatios).toEqual([1, 2, 3]);
    expect(floorRatioLines([chosen])).toEqual([
      "10000 messages: ours/copy floor 1.00x, 2.00x, 3.00x in 3 processes (the row is the median one)",
      "10000 messages: ours again/read floor 1.00x, 2.00x, 3.00x in 3 processes (the median is used)",
    ]);
    // The chosen row's own again ratio is 1; the table shows the median of the three, 2.
    expect(floorRows([chosen])[0]?.[6]).toBe("2.00x");
    expect(medianFloorRow([floorRow(1000, 1, 1)]).againRatios).toBeUndefined();
    expect(() => medianFloorRow([])).toThrow(/no rows/);
  });
});

describe("growth and the linear targets", () => {
  const peers = [
    peerRow({ messages: 10_000, ours: 1, prune: 3 }),
    peerRow({ messages: 100_000, ours: 30, prune: 60 }),
  ];
  // At 10k: the job 1 ms, the copy floor 0.5; ours again 0.4, the read floor 0.2.
  const floors = (ours100k: number, again100k = 8) => [
    floorRow(10_000, 1, 0.5, 0.4, 0.2),
    floorRow(100_000, ours100k, 20, again100k, 4),
  ];
  const linear = (rows: ReturnType<typeof floors> | undefined, floor: string) =>
    peerTargets(peers, rows).find((check) => check.target.includes(`the ${floor} floor`));

  it("is each contender's time at 100k over its time at 10k", () => {
    expect(growth(peers, floors(30))).toEqual({
      ours: 30,
      pruneMessages: 20,
      oursBesideCopy: 30,
      copyFloor: 40,
      oursAgain: 20,
      readFloor: 20,
      jobOverCopy: 0.75,
      againOverRead: 1,
    });
    expect(growth(peers, undefined)).toBeUndefined();
    expect(growth(peers.slice(0, 1), floors(30))).toBeUndefined();
    expect(growthLine(growth(peers, floors(30))!)).toContain("beside the copy floor's 40.0x");
    expect(floorRows(floors(30))[1]).toHaveLength(FLOOR_HEADERS.length);
    expect(floorRows(floors(30))[1]?.[3]).toBe("1.50x");
  });

  it("passes the job when it grows at most 1.5x as much as the copy floor, and fails beyond", () => {
    expect(linear(floors(30), "copy")?.pass).toBe(true);
    // 60x against the floor's 40x: the limit, still linear.
    expect(linear(floors(60), "copy")?.pass).toBe(true);
    expect(linear(floors(60), "copy")?.measured).toMatch(/^1\.50x as much/);
    expect(linear(floors(61), "copy")?.pass).toBe(false);
  });

  it("fails the pass over the messages when a quadratic part hides under the copy floor", () => {
    // The job: a quadratic 0.1 ms at 10k (10 ms at 100k) is lost in the copy floor's growth.
    expect(linear(floors(48), "copy")?.pass).toBe(true);
    // Ours again has no copies to hide it: 0.4 ms -> 8 ms linear, 0.3 + 0.1 -> 6 + 10 ms not.
    expect(linear(floors(48, 8), "read")?.pass).toBe(true);
    expect(linear(floors(48, 16), "read")?.pass).toBe(false);
    expect(linear(floors(48, 16), "read")?.measured).toMatch(
      /^2\.00x as much \(40\.0x vs 20\.0x\)/,
    );
  });

  it("fails both when the floors were not measured", () => {
    for (const floor of ["copy", "read"]) {
      expect(linear(undefined, floor)).toMatchObject({ pass: false, measured: /not measured/ });
    }
    expect(peerTargets(peers.slice(0, 1)).some((check) => /linear/.test(check.target))).toBe(false);
  });
});
