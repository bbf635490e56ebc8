/**
 * The stateless-server figure of `npm run bench`: a server that gets the whole history with
 * each request (an HTTP handler, a `prepareStep` without memory) converts and compacts a
 * conversation this process has never seen. Timed side by side, in one process, on the same
 * AI SDK conversation as part 3 (`bench/peers.ts`):
 *
 * - ours: `compactModelMessages(messages, { contextLimit, compactor })` from
 *   `agent-compaction/ai-sdk`, the compactor `new ThresholdCompactor({ toolCompaction:
 *   "redact" })`: converts the `ModelMessage[]` to ours, masks every tool result older than the
 *   last 3 turns, converts back. Each run gets a fresh deep copy (made untimed): new objects.
 * - the AI SDK's `pruneMessages` with `toolCalls: "before-last-N-messages"` (the same job as in
 *   part 3), on a fresh copy too.
 *
 * Run alone: `npx tsx bench/stateless.ts [--sizes 1000,10000]`. The target: ours at most 2x
 * pruneMessages at 10k messages.
 */
import { type ModelMessage, pruneMessages } from "ai";
import { compactModelMessages } from "../src/ai-sdk/index.js";
import { ThresholdCompactor } from "../src/index.js";
import { formatMs, renderTable } from "./format.js";
import { buildPeerWorkload, type PeerTiming, timeInterleaved } from "./peers.js";
import { gc } from "./speed.js";

/** The ratio the stateless target allows at 10k messages. */
export const STATELESS_TARGET_RATIO = 2;

/** One size's timing. */
export interface StatelessRow {
  messages: number;
  ours: PeerTiming;
  pruneMessages: PeerTiming;
  /** ours / pruneMessages (medians). */
  ratio: number;
  /** Tool results still full after each: the same job. */
  fullResults: { ours: number; pruneMessages: number };
}

/**
 * New objects and arrays all the way down, the strings shared: what the library has never seen,
 * as part 3's fresh copies are. (A request body parsed from JSON also has new strings; moving
 * them out of the young generation is the parse's cost, whoever allocates next pays it.)
 */
function freshCopy<T>(value: T, depth = 0): T {
  if (typeof value !== "object" || value === null || depth > 64) return value;
  if (Array.isArray(value)) return value.map((item) => freshCopy(item, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = freshCopy(item, depth + 1);
  return out as T;
}

function fullResults(messages: readonly ModelMessage[], notice: string): number {
  let full = 0;
  for (const message of messages) {
    if (message.role !== "tool") continue;
    for (const part of message.content)
      if (part.type === "tool-result" && !JSON.stringify(part.output).includes(notice)) full += 1;
  }
  return full;
}

/** Times ours and `pruneMessages` at each size, interleaved. */
export async function measureStateless(
  sizes: readonly number[],
  samples = (size: number) => (size >= 100_000 ? 7 : size >= 10_000 ? 31 : 101),
): Promise<StatelessRow[]> {
  const rows: StatelessRow[] = [];
  for (const size of sizes) {
    const workload = buildPeerWorkload(size);
    const compactor = new ThresholdCompactor({ toolCompaction: "redact" });
    const toolCalls = `before-last-${workload.pruneKeepLast}-messages` as const;
    // A window the conversation is well over: the compactor runs, masking all it may.
    const options = { contextLimit: 1000, compactor };
    let oursInput = freshCopy(workload.modelMessages);
    let pruneInput = freshCopy(workload.modelMessages);
    const oursOut = (await compactModelMessages(oursInput, options)).messages;
    const pruneOut = pruneMessages({ messages: pruneInput, toolCalls });
    gc?.();
    const timings = await timeInterleaved(
      [
        {
          name: "ours",
          prepare: () => {
            oursInput = freshCopy(workload.modelMessages);
          },
          run: () => compactModelMessages(oursInput, options),
        },
        {
          name: "pruneMessages",
          prepare: () => {
            pruneInput = freshCopy(workload.modelMessages);
          },
          run: () => pruneMessages({ messages: pruneInput, toolCalls }),
        },
      ],
      size >= 10_000 ? 5 : 20,
      samples(size),
      { collect: false, minWarmUpMs: 1000 },
    );
    const ours = timings.ours!;
    const prune = timings.pruneMessages!;
    rows.push({
      messages: size,
      ours,
      pruneMessages: prune,
      ratio: ours.medianMs / prune.medianMs,
      fullResults: {
        ours: fullResults(oursOut, "[Content redacted"),
        pruneMessages: fullResults(pruneOut, "\u0000"),
      },
    });
  }
  return rows;
}

/** The table and the target line. */
export function statelessReport(rows: readonly StatelessRow[]): string {
  const table = renderTable(
    [
      "messages",
      "ours (convert + compact + back)",
      "pruneMessages",
      "ours/prune",
      "full results ours / prune",
    ],
    rows.map((row) => [
      String(row.messages),
      formatMs(row.ours.medianMs),
      formatMs(row.pruneMessages.medianMs),
      `${row.ratio.toFixed(2)}x`,
      `${row.fullResults.ours} / ${row.fullResults.pruneMessages}`,
    ]),
  );
  const at10k = rows.find((row) => row.messages === 10_000);
  const target =
    at10k === undefined
      ? "stateless target: not measured (no 10k row)"
      : `stateless target (ours at most ${STATELESS_TARGET_RATIO}x pruneMessages at 10k, never-seen messages): ${at10k.ratio.toFixed(2)}x ${at10k.ratio <= STATELESS_TARGET_RATIO ? "PASS" : "FAIL"}`;
  return `${table}\n${target}\n`;
}

const isMain = process.argv[1]?.endsWith("stateless.ts") === true;
if (isMain) {
  const flag = process.argv.indexOf("--sizes");
  const sizes =
    flag === -1 ? [1000, 10_000] : (process.argv[flag + 1] ?? "").split(",").map(Number);
  const rows = await measureStateless(sizes);
  process.stdout.write(statelessReport(rows));
}
