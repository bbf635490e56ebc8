/**
 * The least any code can do for part 3's job, timed beside ours to tell what the machine does
 * as a conversation grows (CPU caches, the young-generation collector) from what the code does.
 * Every decision is made in advance, untimed: which messages are old tool results.
 *
 * - {@link copyFloor}: the job's output and nothing else: a copy of the array in which each
 *   old tool result's message is copied with the notice in place of its output. The copies are
 *   object literals of the conversation's own keys, the fastest copy V8 makes (it can allocate
 *   a literal that keeps surviving straight into the old generation), not the spread ours uses.
 * - {@link readFloor}: reads what masking must read of every older message (its role, its
 *   first block's type and its turn) and writes nothing.
 */

import { isDeepStrictEqual } from "node:util";
import { type Message, REDACTION_NOTICE, type ToolResultBlock } from "../src/index.js";
import { formatMs } from "./format.js";
import type { PeerRow } from "./peers.js";
import type { Timing } from "./speed.js";

/** Indexes of the messages `compacted` changed: the ones {@link copyFloor} copies. */
export function changedIndexes(
  conversation: readonly Message[],
  compacted: readonly Message[],
): number[] {
  const indexes: number[] = [];
  for (let index = 0; index < conversation.length; index += 1)
    if (conversation[index] !== compacted[index]) indexes.push(index);
  return indexes;
}

/**
 * The job's output for `indexes` (each a user message whose only block is a tool result with
 * `isError` and `compactSummary`, as the peer conversation's are), made as cheaply as possible.
 */
export function copyFloor(conversation: readonly Message[], indexes: readonly number[]) {
  const out = conversation.slice();
  for (let at = 0; at < indexes.length; at += 1) {
    const index = indexes[at]!;
    const message = conversation[index]!;
    const block = message.content[0] as ToolResultBlock;
    const masked = {
      type: block.type,
      toolUseId: block.toolUseId,
      content: REDACTION_NOTICE,
      isError: block.isError,
      compactSummary: block.compactSummary,
    } as ToolResultBlock;
    out[index] = {
      role: message.role,
      id: message.id,
      sessionId: message.sessionId,
      turnId: message.turnId,
      createdAt: message.createdAt,
      content: [masked],
    } as Message;
  }
  return out;
}

/** Reads the role, first block type and turn number of the first `end` messages; a checksum. */
export function readFloor(conversation: readonly Message[], end: number): number {
  let sum = 0;
  for (let index = 0; index < end; index += 1) {
    const message = conversation[index]!;
    if (message.role !== "user") continue;
    const block = message.content[0];
    if (block?.type !== "tool_result") continue;
    sum += message.turnId.number;
  }
  return sum;
}

/**
 * Throws unless {@link copyFloor} leaves what ours left, key for key: the floor does the same
 * job, so its time is a floor for ours.
 */
export function checkCopyFloor(
  conversation: readonly Message[],
  ours: readonly Message[],
): number[] {
  const indexes = changedIndexes(conversation, ours);
  if (!isDeepStrictEqual(copyFloor(conversation, indexes), ours))
    throw new Error("the copy floor does not leave what ThresholdCompactor leaves");
  return indexes;
}

/** Headers of the floors table. */
export const FLOOR_HEADERS = [
  "messages",
  "ours",
  "copy floor",
  "read floor",
  "ours/copy floor",
  "ours per 1k msgs",
  "copy floor per 1k msgs",
  "read floor per 1k msgs",
] as const;

/** The floors table: ours and the floors, timed in their own interleaved phase. */
export function floorRows(rows: readonly PeerRow[]): string[][] {
  const perThousand = (timing: Timing, messages: number) =>
    formatMs((timing.medianMs * 1000) / messages);
  return rows.map(({ messages, floors }) => [
    String(messages),
    formatMs(floors.ours.medianMs),
    formatMs(floors.copy.medianMs),
    formatMs(floors.read.medianMs),
    `${(floors.ours.medianMs / floors.copy.medianMs).toFixed(2)}x`,
    perThousand(floors.ours, messages),
    perThousand(floors.copy, messages),
    perThousand(floors.read, messages),
  ]);
}

/** How much longer a 10x larger conversation takes (100k over 10k), for each contender. */
export interface Growth {
  ours: number;
  pruneMessages: number;
  /** Ours in the floors' phase. */
  oursBesideFloors: number;
  copyFloor: number;
  readFloor: number;
}

/** The growth from 10k to 100k messages, when both rows are there. */
export function growth(rows: readonly PeerRow[]): Growth | undefined {
  const medium = rows.find((row) => row.messages === 10_000);
  const large = rows.find((row) => row.messages === 100_000);
  if (medium === undefined || large === undefined) return undefined;
  const of = (pick: (row: PeerRow) => Timing) => pick(large).medianMs / pick(medium).medianMs;
  return {
    ours: of((row) => row.ours),
    pruneMessages: of((row) => row.pruneMessages),
    oursBesideFloors: of((row) => row.floors.ours),
    copyFloor: of((row) => row.floors.copy),
    readFloor: of((row) => row.floors.read),
  };
}

/** One line: each contender's growth from 10k to 100k. */
export function growthLine({
  ours,
  pruneMessages,
  oursBesideFloors,
  copyFloor,
  readFloor,
}: Growth) {
  const x = (value: number) => `${value.toFixed(1)}x`;
  return (
    `From 10k to 100k messages (10x): ours ${x(ours)}, pruneMessages ${x(pruneMessages)}; ` +
    `in the floors' phase ours ${x(oursBesideFloors)}, the copy floor ${x(copyFloor)}, the read floor ${x(readFloor)}.`
  );
}
