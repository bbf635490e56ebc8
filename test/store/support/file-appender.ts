// A worker process for the file store's crash test: appends numbered messages to a session
// until it is killed, printing each message's id once its append resolved.
import { FileStore } from "../../../src/file-store/file-store.js";
import { openSession } from "../../../src/store/stored-session.js";
import { ConversationBuilder } from "../../../src/testing/index.js";

const [directory, sessionId] = process.argv.slice(2) as [string, string];

/** The message number `index` of this test: the same for the writer and the checker. */
export function numbered(sessionId: string, index: number) {
  return new ConversationBuilder({ sessionId, idPrefix: `n${index}` })
    .user(`message ${index}: ${"a line of a long tool output\n".repeat(40)}`)
    .build()[0]!;
}

if (directory !== undefined && sessionId !== undefined) {
  const session = await openSession(new FileStore({ directory }), sessionId, {
    contextLimit: 10_000_000,
    compactor: false,
  });
  for (let index = 0; ; index += 1) {
    const message = numbered(sessionId, index);
    await session.append(message);
    process.stdout.write(`${message.id}\n`);
  }
}
