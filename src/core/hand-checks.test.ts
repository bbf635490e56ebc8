// The checks written by hand in place of zod's record, tuple, date and int schemas (which would
// add 6 kB to a session's bundle) place and word their issues as those schemas did.
import { describe, expect, it } from "vitest";
import { createCompactor } from "../compactors/create-compactor.js";
import { AgentSession } from "../session/agent-session.js";
import type { SessionSnapshot } from "../session/snapshot.js";
import { ValidationError, type ValidationIssue } from "./errors.js";
import { MessageSchema } from "./schemas.js";

/** The issues `build` is refused for. */
function issuesOf(build: () => unknown): ValidationIssue[] {
  try {
    build();
  } catch (error) {
    if (ValidationError.isInstance(error)) return error.issues;
    throw error;
  }
  throw new Error("not refused");
}

const session = () => new AgentSession({ contextLimit: 10_000, compactor: false });
const message = {
  role: "user",
  id: "m1",
  sessionId: "s",
  turnId: { owner: "u", number: 0 },
  createdAt: new Date(0),
  content: [{ type: "text", text: "hi" }],
};

describe("compact summaries (a tuple per entry)", () => {
  it("names the entry and its id or summary", () => {
    const entries = new Map<unknown, unknown>([
      ["", "x"],
      ["a", 5],
      [3, "y"],
      ["ok", "fine"],
    ]);
    expect(issuesOf(() => session().storeCompactSummaries(entries as Map<string, string>))).toEqual(
      [
        { path: [0, 0], message: "must be a non-empty tool use id" },
        { path: [1, 1], message: "Invalid input: expected string, received number" },
        { path: [2, 0], message: "Invalid input: expected string, received number" },
      ],
    );
  });
});

describe("a record: a snapshot's compact summaries, a CompactorType's config", () => {
  const snapshot = session().toJSON();
  const restore = (compactSummaries: unknown) => () =>
    AgentSession.fromJSON({ ...snapshot, compactSummaries } as SessionSnapshot);

  it("refuses anything but a plain object, naming its type", () => {
    expect(issuesOf(restore([]))).toEqual([
      { path: ["compactSummaries"], message: "Invalid input: expected record, received array" },
    ]);
    expect(issuesOf(restore(new Map()))[0]?.message).toBe(
      "Invalid input: expected record, received Map",
    );
    expect(issuesOf(() => createCompactor({ type: "threshold", config: "x" as never }))).toEqual([
      { path: ["config"], message: "Invalid input: expected record, received string" },
    ]);
  });

  it("names each bad value by its key, and a symbol key", () => {
    expect(issuesOf(restore({ a: 1, b: "ok", c: null }))).toEqual([
      {
        path: ["compactSummaries", "a"],
        message: "Invalid input: expected string, received number",
      },
      { path: ["compactSummaries", "c"], message: "Invalid input: expected string, received null" },
    ]);
    expect(issuesOf(restore({ [Symbol("k")]: "v" }))).toEqual([
      { path: ["compactSummaries", "Symbol(k)"], message: "Invalid key in record" },
    ]);
  });

  it("takes a plain object, one without a prototype too", () => {
    const summaries = Object.assign(Object.create(null) as object, { t1: "short" });
    expect(
      AgentSession.fromJSON({ ...snapshot, compactSummaries: summaries }).compactSummaries,
    ).toEqual(new Map([["t1", "short"]]));
  });
});

describe("a message's createdAt and turn number", () => {
  const refused = (fields: object) =>
    issuesOf(() => session().append({ ...message, ...fields } as never));

  it("a createdAt that is not a valid Date", () => {
    expect(refused({ createdAt: "2024-01-01T00:00:00Z" })).toEqual([
      { path: [0, "createdAt"], message: "Invalid input: expected date, received string" },
    ]);
    expect(refused({ createdAt: new Date(Number.NaN) })).toEqual([
      { path: [0, "createdAt"], message: "must be a valid date" },
    ]);
    expect(MessageSchema.safeParse(message).success).toBe(true);
  });

  it("a turn number that is not a whole number ≥ 0: one issue each", () => {
    const at = [0, "turnId", "number"];
    for (const number of [1.5, -1.5, 2 ** 53, -1e300])
      expect(refused({ turnId: { owner: "u", number } })).toEqual([
        { path: at, message: "must be a whole number" },
      ]);
    expect(refused({ turnId: { owner: "u", number: -1 } })).toEqual([
      { path: at, message: "must be 0 or more" },
    ]);
  });
});
