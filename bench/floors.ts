/**
 * Floors of part 3's job: its bare minimum, timed beside ours to tell what the machine does as
 * a conversation grows (CPU caches, the young-generation collector) from what the code does.
 * Every decision is made in advance, untimed: which messages are old tool results.
 *
 * - {@link copyFloor}: the job's output and nothing else: a copy of the array in which each
 *   old tool result's message is copied with the notice in place of its output, by object
 *   spread as ours copies. (Object literals of the conversation's keys are faster, but V8 may
 *   allocate a literal straight into the old generation once its copies keep surviving, and
 *   at 10k messages it did so in some processes and not others: 0.37 ms or 1.07 ms a call.)
 * - {@link readFloor}: reads what masking must read of every older message (its role, its
 *   first block's type and its turn) and writes nothing.
 */

import { isDeepStrictEqual } from "node:util";
import {
  type Message,
  REDACTION_NOTICE,
  ThresholdCompactor,
  type ToolResultBlock,
} from "../src/index.js";
import { formatMs } from "./format.js";
import {
  buildPeerConversation,
  medianProcess,
  type PeerRow,
  type PeerTiming,
  ratioLines,
  timeInterleaved,
} from "./peers.js";
import { gc, median, type Timing } from "./speed.js";

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
 * The job's output for `indexes` (each a user message whose only block is a tool result, as
 * the peer conversation's are), copied the way ours copies: by object spread.
 */
export function copyFloor(conversation: readonly Message[], indexes: readonly number[]) {
  const out = conversation.slice();
  for (let at = 0; at < indexes.length; at += 1) {
    const index = indexes[at]!;
    const message = conversation[index]!;
    const block = { ...(message.content[0] as ToolResultBlock) };
    block.content = REDACTION_NOTICE;
    const copy = { ...message };
    copy.content = [block];
    out[index] = copy;
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

/** Ours and the floors at one size, timed in a process of their own. */
export interface FloorRow {
  messages: number;
  /** The job, interleaved with the copy floor. */
  ours: PeerTiming;
  copy: PeerTiming;
  /**
   * `compact` on its own output, interleaved with the read floor: every decision of the job
   * (each message read, each old result found done), nothing to copy.
   */
  oursAgain: PeerTiming;
  read: PeerTiming;
  /** ours/copy floor in each process this size ran in, ascending; the row is the median one. */
  processRatios?: number[];
  /** oursAgain/read floor in each process, ascending. */
  againRatios?: number[];
}

/** How {@link measureFloors} runs: the peer part's rounds. */
export interface FloorOptions {
  warmUps: number;
  samples: number;
  minWarmUpMs?: number;
}

/**
 * Times ours beside each floor on the peer conversation of `size` messages: the job beside
 * the copy floor, then `compact` on its own output beside the read floor, two by two in
 * alternating rounds. The process holds nothing else: in the peer process, which also holds
 * the peers' messages and the garbage of their runs, the same 10k timings moved by up to 3x.
 */
export async function measureFloors(size: number, options: FloorOptions): Promise<FloorRow> {
  const conversation = buildPeerConversation(size);
  const compactor = new ThresholdCompactor({ toolCompaction: "redact" });
  const masked = compactor.compact(conversation, new Map()).conversation;
  const indexes = checkCopyFloor(conversation, masked);
  const readEnd = (indexes.at(-1) ?? -1) + 1;
  const timing = { collect: false, minWarmUpMs: options.minWarmUpMs ?? 1000 };
  gc?.();
  const job = await timeInterleaved(
    [
      { name: "ours", run: () => compactor.compact(conversation, new Map()) },
      { name: "copy", run: () => copyFloor(conversation, indexes) },
    ],
    options.warmUps,
    options.samples,
    timing,
  );
  gc?.();
  const pass = await timeInterleaved(
    [
      { name: "oursAgain", run: () => compactor.compact(masked, new Map()) },
      { name: "read", run: () => readFloor(masked, readEnd) },
    ],
    options.warmUps,
    options.samples,
    timing,
  );
  return {
    messages: size,
    ours: job["ours"]!,
    copy: job["copy"]!,
    oursAgain: pass["oursAgain"]!,
    read: pass["read"]!,
  };
}

const floorRatio = (row: FloorRow) => row.ours.medianMs / row.copy.medianMs;
const againRatio = (row: FloorRow) => row.oursAgain.medianMs / row.read.medianMs;

/**
 * Of one size's rows from separate processes, the one with the median ours/copy floor ratio,
 * with both ratios of every process.
 */
export function medianFloorRow(rows: readonly FloorRow[]): FloorRow {
  const row = medianProcess(rows, floorRatio);
  return rows.length === 1
    ? row
    : { ...row, againRatios: rows.map(againRatio).sort((a, b) => a - b) };
}

/** One line per size with more than one process: both ratios in each. */
export function floorRatioLines(rows: readonly FloorRow[]): string[] {
  return [
    ...ratioLines(rows, "ours/copy floor"),
    ...ratioLines(
      rows.map((row) => ({
        messages: row.messages,
        ...(row.againRatios === undefined ? {} : { processRatios: row.againRatios }),
      })),
      "ours again/read floor",
    ).map((line) => line.replace(" (the row is the median one)", " (the median is used)")),
  ];
}

/** Headers of the floors table. */
export const FLOOR_HEADERS = [
  "messages",
  "ours",
  "copy floor",
  "ours/copy floor",
  "ours again",
  "read floor",
  "ours again/read floor",
  "ours per 1k msgs",
  "ours again per 1k msgs",
  "read floor per 1k msgs",
] as const;

/** The floors table. */
export function floorRows(rows: readonly FloorRow[]): string[][] {
  const perThousand = (timing: Timing, messages: number) =>
    formatMs((timing.medianMs * 1000) / messages);
  return rows.map((row) => [
    String(row.messages),
    formatMs(row.ours.medianMs),
    formatMs(row.copy.medianMs),
    `${floorRatio(row).toFixed(2)}x`,
    formatMs(row.oursAgain.medianMs),
    formatMs(row.read.medianMs),
    `${medianAgainRatio(row).toFixed(2)}x`,
    perThousand(row.ours, row.messages),
    perThousand(row.oursAgain, row.messages),
    perThousand(row.read, row.messages),
  ]);
}

/** oursAgain/read floor: the median over the processes, or the row's own. */
function medianAgainRatio(row: FloorRow): number {
  const ratios = row.againRatios;
  return ratios === undefined ? againRatio(row) : median(ratios);
}

/** How much longer a 10x larger conversation takes (100k over 10k), for each contender. */
export interface Growth {
  /** Beside pruneMessages, in the peer processes. */
  ours: number;
  pruneMessages: number;
  /** In the floors' processes. */
  oursBesideCopy: number;
  copyFloor: number;
  oursAgain: number;
  readFloor: number;
  /** How much more ours grew than the copy floor: ours/copy at 100k over ours/copy at 10k. */
  jobOverCopy: number;
  /** The same for ours again and the read floor (median ratios of the processes). */
  againOverRead: number;
}

/** The growth from 10k to 100k messages, when every row is there. */
export function growth(
  peers: readonly PeerRow[],
  floors: readonly FloorRow[] | undefined,
): Growth | undefined {
  const at = <T extends { messages: number }>(rows: readonly T[] | undefined, messages: number) =>
    rows?.find((row) => row.messages === messages);
  const [peer10k, peer100k] = [at(peers, 10_000), at(peers, 100_000)];
  const [floor10k, floor100k] = [at(floors, 10_000), at(floors, 100_000)];
  if (!peer10k || !peer100k || !floor10k || !floor100k) return undefined;
  const grew = (large: Timing, medium: Timing) => large.medianMs / medium.medianMs;
  return {
    ours: grew(peer100k.ours, peer10k.ours),
    pruneMessages: grew(peer100k.pruneMessages, peer10k.pruneMessages),
    oursBesideCopy: grew(floor100k.ours, floor10k.ours),
    copyFloor: grew(floor100k.copy, floor10k.copy),
    oursAgain: grew(floor100k.oursAgain, floor10k.oursAgain),
    readFloor: grew(floor100k.read, floor10k.read),
    jobOverCopy: floorRatio(floor100k) / floorRatio(floor10k),
    againOverRead: medianAgainRatio(floor100k) / medianAgainRatio(floor10k),
  };
}

/** One line: each contender's growth from 10k to 100k. */
export function growthLine(grown: Growth) {
  const x = (value: number) => `${value.toFixed(1)}x`;
  return (
    `From 10k to 100k messages (10x): beside pruneMessages ours ${x(grown.ours)}, pruneMessages ${x(grown.pruneMessages)}; ` +
    `the job ${x(grown.oursBesideCopy)} beside the copy floor's ${x(grown.copyFloor)}; ` +
    `ours again ${x(grown.oursAgain)} beside the read floor's ${x(grown.readFloor)}.`
  );
}
