import type { PeerRow } from "../../bench/peers.js";

/** A timing of one sample. */
export const timing = (medianMs: number) => ({ medianMs, minMs: medianMs, samples: 1 });

/** A part-3 row with the given medians; the floors take ours' time unless given. */
export function peerRow(times: {
  messages?: number;
  ours: number;
  prune: number;
  copyFloor?: number;
  readFloor?: number;
}): PeerRow {
  const { messages = 10_000, ours, prune, copyFloor = ours, readFloor = copyFloor } = times;
  return {
    messages,
    turns: 1,
    toolResults: 1,
    ours: timing(ours),
    oursNewArray: timing(ours),
    oursFresh: timing(ours),
    pruneMessages: timing(prune),
    trimMessages: undefined,
    floors: { ours: timing(ours), copy: timing(copyFloor), read: timing(readFloor) },
    outcome: {
      ours: { messages: 1, fullToolResults: 1 },
      pruneMessages: { messages: 1, fullToolResults: 1 },
      trimMessages: undefined,
    },
    settings: { pruneToolCalls: "before-last-1-messages", trimMaxTokens: 1 },
  };
}
