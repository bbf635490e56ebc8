/**
 * What a stored session costs beside `AgentSession` (issue 21): an idle `maybeCompact` (nothing
 * due) on a long history, and what each compaction writes to the store. Both faces run one
 * core, so an idle call on a stored session is the in-memory call plus one store read; a
 * compaction writes its head (the live conversation) and its own archive records, never the
 * earlier ones, so the head stays the size of the live conversation however many compactions
 * came before.
 *
 *   npx tsx bench/store-costs.ts       the tables (also part of `npm run bench -- --only stores`)
 */
import { pathToFileURL } from "node:url";
import { LLMCompactor } from "../src/compactors/llm-compactor.js";
import type { Message } from "../src/core/message.js";
import { AgentSession } from "../src/session/agent-session.js";
import { MemoryStore } from "../src/store/memory-store.js";
import type { SessionStore } from "../src/store/session-store.js";
import { openSession } from "../src/store/stored-session.js";
import { MockLlmClient } from "../src/testing/index.js";
import { formatMs, renderTable } from "./format.js";
import { buildConversation, MESSAGES_PER_TURN } from "./speed.js";

/** A MemoryStore that counts the bytes each kind of write puts in it. */
class CountingStore extends MemoryStore {
  written = { log: 0, head: 0, archive: 0 };
  lastHead = 0;

  override append(...args: Parameters<SessionStore["append"]>) {
    this.written.log += args[2].length;
    return super.append(...args);
  }

  override swapHead(...args: Parameters<SessionStore["swapHead"]>) {
    this.written.head += args[2].data.length;
    this.lastHead = args[2].data.length;
    return super.swapHead(...args);
  }

  override setValue(...args: Parameters<SessionStore["setValue"]>) {
    this.written.archive += args[2].length;
    return super.setValue(...args);
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/** Median milliseconds of `run`, after a warm-up. */
async function time(run: () => Promise<unknown>, repeats: number): Promise<number> {
  for (let index = 0; index < 20; index += 1) await run();
  const samples: number[] = [];
  for (let index = 0; index < repeats; index += 1) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/** One row of the idle table. */
export interface IdleRow {
  messages: number;
  agentSessionMs: number;
  storedSessionMs: number;
  storeReadMs: number;
}

/** Idle `maybeCompact` on both faces at `sizes` messages (a window nothing comes near). */
export async function measureIdle(sizes: readonly number[], repeats = 200): Promise<IdleRow[]> {
  const rows: IdleRow[] = [];
  for (const size of sizes) {
    const conversation: Message[] = buildConversation(size);
    const options = { contextLimit: 1_000_000_000 };
    const memory = new AgentSession({ ...options, sessionId: "idle" });
    memory.append(...conversation);
    const store = new MemoryStore();
    const stored = await openSession(store, "idle", options);
    await stored.append(...conversation);
    const position = stored.position;
    rows.push({
      messages: size,
      agentSessionMs: await time(() => memory.maybeCompact(), repeats),
      storedSessionMs: await time(() => stored.maybeCompact(), repeats),
      storeReadMs: await time(() => store.read("idle", position.tail, position.version), repeats),
    });
  }
  return rows;
}

/** One row of the compaction-writes table. */
export interface CompactionWritesRow {
  compactions: number;
  headBytes: number;
  liveBytes: number;
  headWrittenPerCompaction: number;
  archiveWrittenPerCompaction: number;
}

/** Compacts a stored session `total` times (a whole turn appended before each, so no call waits), recording the writes. */
export async function measureCompactionWrites(
  checkpoints: readonly number[],
): Promise<CompactionWritesRow[]> {
  const store = new CountingStore();
  const llmCompactor = new LLMCompactor(new MockLlmClient({ defaultReply: "Summary so far." }), {
    keepRecentTurns: 1,
  });
  const session = await openSession(store, "writes", {
    contextLimit: 200_000,
    compactor: false,
    llmCompactor,
  });
  const rows: CompactionWritesRow[] = [];
  const last = Math.max(...checkpoints);
  for (let count = 1; count <= last; count += 1) {
    await session.append(
      ...buildConversation(MESSAGES_PER_TURN, count * 100).map((message) => ({
        ...message,
        sessionId: "writes",
      })),
    );
    await session.forceCompact();
    if (checkpoints.includes(count)) {
      rows.push({
        compactions: count,
        headBytes: store.lastHead,
        liveBytes: JSON.stringify(session.toJSON().messages).length,
        headWrittenPerCompaction: store.written.head / count,
        archiveWrittenPerCompaction: store.written.archive / count,
      });
    }
  }
  return rows;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;

/** Both tables as text. */
export function renderStoreCosts(
  idle: readonly IdleRow[],
  writes: readonly CompactionWritesRow[],
): string {
  const idleTable = renderTable(
    ["messages", "AgentSession", "StoredSession", "one store read", "stored / (agent + read)"],
    idle.map((row) => [
      row.messages.toLocaleString("en-US"),
      formatMs(row.agentSessionMs),
      formatMs(row.storedSessionMs),
      formatMs(row.storeReadMs),
      `${(row.storedSessionMs / (row.agentSessionMs + row.storeReadMs)).toFixed(2)}x`,
    ]),
  );
  const writesTable = renderTable(
    [
      "compactions",
      "head",
      "live conversation",
      "head written / compaction",
      "archive written / compaction",
    ],
    writes.map((row) => [
      row.compactions.toLocaleString("en-US"),
      kb(row.headBytes),
      kb(row.liveBytes),
      kb(row.headWrittenPerCompaction),
      kb(row.archiveWrittenPerCompaction),
    ]),
  );
  return `Idle maybeCompact (median)\n${idleTable}\n\nWhat compactions write (MemoryStore, bytes of JSON)\n${writesTable}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const idle = await measureIdle([1_000, 10_000]);
  const writes = await measureCompactionWrites([10, 100, 300]);
  process.stdout.write(`${renderStoreCosts(idle, writes)}\n`);
}
