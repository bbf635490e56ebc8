// A worker process for the file store's lock test: on each line from stdin (a round number)
// it reads the session and appends at the tail it read, then prints the outcome as JSON.
import { createInterface } from "node:readline";
import { FileStore } from "../../../src/file-store/file-store.js";

const [directory, sessionId, name, staleLockMs] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
];

const store = new FileStore({ directory, staleLockMs: Number(staleLockMs), fsync: false });
process.stdout.write("ready\n");
for await (const line of createInterface({ input: process.stdin })) {
  const round = Number(line);
  const data = `${name} round ${round}`;
  let outcome: object;
  try {
    const { tail, version } = await store.read(sessionId, 0);
    const result = await store.append(sessionId, { tail, version }, data);
    outcome = result.appended ? { round, seq: result.seq, data } : { round, refused: true };
  } catch (error) {
    // A lock lost by a stall (an overloaded machine) fails the call before it commits: safe.
    const code = (error as { code?: unknown }).code;
    outcome = code === "lock_lost" ? { round, refused: true } : { round, error: String(error) };
  }
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}
