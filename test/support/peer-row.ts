import type { FloorRow } from "../../bench/floors.js";
import type { PeerRow } from "../../bench/peers.js";

/** A timing of one sample. */
export const timing = (medianMs: number) => ({ medianMs, minMs: medianMs, samples: 1 });

/** A part-3 row with the given medians. */
export function peerRow(times: { messages?: number; ours: number; prune: number }): PeerRow {
  const { messages = 10_000, ours, prune } = times;
  return {
    messages,
    turns: 1,
    toolResults: 1,
    ours: timing(ours),
    oursNewArray: timing(ours),
    oursFresh: timing(ours),
    pruneMessages: timing(prune),
    trimMessages: undefined,
    outcome: {
      ours: { messages: 1, fullToolResults: 1 },
      pruneMessages: { messages: 1, fullToolResults: 1 },
      trimMessages: undefined,
    },
    settings: { pruneToolCalls: "before-last-1-messages", trimMaxTokens: 1 },
  };
}

/** A floors row with the given medians: the job and the copy floor, ours again and the read floor. */
export function floorRow(
  messages: number,
  ours: number,
  copy: number,
  again = ours / 2,
  read = copy / 2,
): FloorRow {
  return {
    messages,
    ours: timing(ours),
    copy: timing(copy),
    oursAgain: timing(again),
    read: timing(read),
  };
}
