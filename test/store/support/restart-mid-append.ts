import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import { decodeRecord } from "../../../src/store/records.js";
import type { SessionStore } from "../../../src/store/session-store.js";
import { openSession } from "../../../src/store/stored-session.js";
import { ConversationBuilder } from "../../../src/testing/index.js";
import type { TestServer } from "../../setup/servers.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Four workers append 60 messages each while the server is killed (as a crash would) and
 * started again. Each worker retries a failed append with the same message, as an app retries
 * a request: afterwards every message is there once, every worker sees one order, and every
 * stored record reads back whole.
 */
export async function restartMidAppend(
  server: TestServer,
  openStore: () => Promise<SessionStore>,
): Promise<void> {
  const id = `conversation-${randomUUID()}`;
  const workers = await Promise.all(
    Array.from({ length: 4 }, async () =>
      openSession(await openStore(), id, { contextLimit: 10_000_000, compactor: false }),
    ),
  );
  let acknowledged = 0;
  let failures = 0;
  const crashed = (async () => {
    while (acknowledged < 40) await pause(5);
    await server.crash();
    await pause(200);
    await server.start();
  })();
  const expected = workers.map((_, w) =>
    Array.from(
      { length: 60 },
      (_, index) =>
        new ConversationBuilder({ sessionId: id, idPrefix: `w${w}-${index}` })
          .user(`worker ${w} message ${index} ${"x".repeat(200)}`)
          .build()[0]!,
    ),
  );
  await Promise.all(
    workers.map(async (worker, w) => {
      for (const message of expected[w]!) {
        for (;;) {
          try {
            await worker.append(message);
            acknowledged += 1;
            break;
          } catch {
            failures += 1;
            await pause(20);
          }
        }
      }
    }),
  );
  await crashed;
  expect(failures).toBeGreaterThan(0);
  const store = await openStore();
  const reader = await openSession(store, id, { contextLimit: 10_000_000 });
  const order = reader.messages.map((message) => message.id);
  expect(order).toHaveLength(240);
  expect(new Set(order).size).toBe(240);
  const byId = new Map(expected.flat().map((message) => [message.id, message]));
  for (const message of reader.messages) expect(message).toEqual(byId.get(message.id));
  for (const worker of workers) {
    await worker.refresh();
    expect(worker.messages.map((message) => message.id)).toEqual(order);
  }
  const state = await store.read(id, 0);
  for (const record of state.records)
    expect(() => decodeRecord(id, record.seq, record.data)).not.toThrow();
}
