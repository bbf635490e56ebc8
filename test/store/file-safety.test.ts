import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ValidationError } from "../../src/core/errors.js";
import { FileStore } from "../../src/file-store/file-store.js";

/** The name FileStore gives a session's directory (its naming, for tests that reach past it). */
const sessionName = (sessionId: string) =>
  `s-${Buffer.from(sessionId, "utf8").toString("base64url")}`;

const roots: string[] = [];
const newRoot = () => {
  const root = mkdtempSync(join(tmpdir(), "agent-compaction-file-safety-"));
  roots.push(root);
  return root;
};
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("file store: options", () => {
  it("refuses bad options with a ValidationError naming the field", () => {
    const directory = newRoot();
    const cases: [unknown, string][] = [
      [undefined, "directory"],
      [{ directory: "" }, "directory"],
      [{ directory: 42 }, "directory"],
      [{ directory, staleLockMs: -1 }, "staleLockMs"],
      [{ directory, staleLockMs: 0 }, "staleLockMs"],
      [{ directory, staleLockMs: 1.5 }, "staleLockMs"],
      [{ directory, staleLockMs: Number.NaN }, "staleLockMs"],
      [{ directory, staleLockMs: 2 ** 31 }, "staleLockMs"],
      [{ directory, staleLockMs: "100" }, "staleLockMs"],
      [{ directory, fsync: "yes" }, "fsync"],
      [{ directory, clock: Date.now() }, "clock"],
    ];
    for (const [options, field] of cases) {
      expect(() => new FileStore(options as never), JSON.stringify(options)).toThrow(
        expect.objectContaining({
          name: "ValidationError",
          message: expect.stringMatching(new RegExp(`^Invalid FileStoreOptions: ${field}: `)),
        }),
      );
    }
    expect(() => new FileStore({ directory, staleLockMs: 2 ** 31 - 1 })).not.toThrow();
  });
});

describe("file store: links", () => {
  it("a symlink at the temporary names a writer would once have used is never followed", async () => {
    const root = newRoot();
    const victim = join(root, "victim.txt");
    writeFileSync(victim, "precious");
    const sessionId = "planted-links";
    const dir = join(root, sessionName(sessionId));
    mkdirSync(join(dir, "log"), { recursive: true });
    // A fresh copy of the module: its first writes would be numbered 1, 2, … under this pid.
    vi.resetModules();
    const { FileStore: FreshFileStore } = await import("../../src/file-store/file-store.js");
    const targets = ["state.json", "values.json", "log/1.json", "log/2.json"];
    for (const target of targets)
      for (let counter = 1; counter <= 20; counter += 1)
        symlinkSync(victim, join(dir, `${target}.${process.pid}.${counter}.tmp`));
    const store = new FreshFileStore({ directory: root, fsync: false });
    await store.append(sessionId, { tail: 0, version: 0 }, "first");
    await store.append(sessionId, { tail: 1, version: 0 }, "second");
    await store.setValue(sessionId, "archive", "value");
    expect(readFileSync(victim, "utf8")).toBe("precious");
    expect((await store.read(sessionId, 0)).records).toEqual([
      { seq: 1, data: "first" },
      { seq: 2, data: "second" },
    ]);
    expect(await store.getValue(sessionId, "archive")).toBe("value");
  });

  it("refuses a session folder, log folder or file that is a symlink, and leaves its target untouched", async () => {
    const root = newRoot();
    const outside = newRoot();
    writeFileSync(join(outside, "secret.txt"), "not a record");
    const store = new FileStore({ directory: root, fsync: false });
    const aboutLink = (sessionId: string) => (error: unknown) =>
      ValidationError.isInstance(error) &&
      error.message.includes(`stored session "${sessionId}"`) &&
      error.message.includes("symbolic link");

    symlinkSync(outside, join(root, sessionName("linked-folder")));
    await expect(store.append("linked-folder", { tail: 0, version: 0 }, "data")).rejects.toSatisfy(
      aboutLink("linked-folder"),
    );
    await expect(store.setValue("linked-folder", "key", "value")).rejects.toSatisfy(
      aboutLink("linked-folder"),
    );
    await expect(store.read("linked-folder", 0)).rejects.toSatisfy(aboutLink("linked-folder"));
    await expect(store.deleteSession("linked-folder")).rejects.toSatisfy(
      aboutLink("linked-folder"),
    );

    mkdirSync(join(root, sessionName("linked-log")));
    symlinkSync(outside, join(root, sessionName("linked-log"), "log"));
    await expect(store.append("linked-log", { tail: 0, version: 0 }, "data")).rejects.toSatisfy(
      aboutLink("linked-log"),
    );
    expect(readdirSync(outside).sort()).toEqual(["secret.txt"]);

    // Reads do not follow links either: a record that is a link is refused, not returned.
    await store.append("linked-record", { tail: 0, version: 0 }, "first");
    const record = join(root, sessionName("linked-record"), "log", "1.json");
    rmSync(record);
    symlinkSync(join(outside, "secret.txt"), record);
    await expect(store.read("linked-record", 0)).rejects.toSatisfy(aboutLink("linked-record"));
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("not a record");
  });
});

/** A line reader on a child's stdout. */
function lines(child: ChildProcessWithoutNullStreams) {
  const queue: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let buffered = "";
  child.stdout.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    const parts = buffered.split("\n");
    buffered = parts.pop() ?? "";
    for (const part of parts) {
      const next = waiting.shift();
      if (next) next(part);
      else queue.push(part);
    }
  });
  return () =>
    new Promise<string>((resolve) => {
      const line = queue.shift();
      if (line !== undefined) resolve(line);
      else waiting.push(resolve);
    });
}

describe("file store: many processes", () => {
  it("15 processes racing compare-and-swap appends past stale locks lose no acknowledged append, and none share a position", async () => {
    const root = newRoot();
    const sessionId = "raced-conversation";
    const lock = join(root, `${sessionName(sessionId)}.lock`);
    const script = join(import.meta.dirname, "support", "file-racer.ts");
    const children = Array.from({ length: 15 }, (_, index) =>
      spawn(process.execPath, ["--import", "tsx", script, root, sessionId, `p${index}`, "2000"], {
        stdio: ["pipe", "pipe", "pipe"],
      }),
    );
    try {
      const readers = children.map(lines);
      expect(await Promise.all(readers.map((next) => next()))).toEqual(children.map(() => "ready"));
      const outcomes: { round: number; seq?: number; data?: string; error?: string }[] = [];
      for (let round = 1; round <= 8; round += 1) {
        // A lock left by a holder that died an hour ago: every process finds it stale at once.
        writeFileSync(lock, "4242 0\n");
        const anHourAgo = new Date(Date.now() - 3_600_000);
        utimesSync(lock, anHourAgo, anHourAgo);
        for (const child of children) child.stdin.write(`${round}\n`);
        for (const next of readers) outcomes.push(JSON.parse(await next()));
      }
      expect(outcomes.filter((outcome) => outcome.error !== undefined)).toEqual([]);
      const acknowledged = outcomes.filter((outcome) => outcome.seq !== undefined);
      const stored = await new FileStore({ directory: root }).read(sessionId, 0);
      // Every acknowledged append is where it was acknowledged, and no position twice.
      expect(acknowledged.map((outcome) => outcome.seq).sort((a, b) => a! - b!)).toEqual(
        stored.records.map((record) => record.seq),
      );
      for (const outcome of acknowledged)
        expect(stored.records[outcome.seq! - 1]).toEqual({ seq: outcome.seq, data: outcome.data });
      expect(stored.tail).toBeGreaterThanOrEqual(8);
    } finally {
      for (const child of children) child.kill();
    }
  }, 60_000);
});
