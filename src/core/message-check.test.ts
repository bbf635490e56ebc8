import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { trajectoryArbitrary } from "../../test/arbitraries/trajectory.js";
import { parseOrThrow } from "./errors.js";
import type { ContentBlock, JsonValue, Message } from "./message.js";
import { hasUniqueIds, isWellFormedMessage, MAX_JSON_DEPTH } from "./message-check.js";
import { MessageSchema, MessagesSchema } from "./schemas.js";
import { assertMessages } from "./validate-conversation.js";

const SEED = 20_260_418;

type Path = (string | number)[];

const JUNK: readonly (() => unknown)[] = [
  () => undefined,
  () => null,
  () => Number.NaN,
  () => Number.POSITIVE_INFINITY,
  () => Number.NEGATIVE_INFINITY,
  () => -1,
  () => 1.5,
  () => -0,
  () => 2 ** 53,
  () => 0,
  () => "",
  () => "x",
  () => true,
  () => ({}),
  () => [],
  // biome-ignore lint/suspicious/noSparseArray: a hole is junk the schema must refuse
  () => [, 1],
  () => new Date(0),
  () => new Date(Number.NaN),
  () => Object.create(Date.prototype),
  () => ({ getTime: () => 0 }),
  () => () => "function",
  () => Symbol("junk"),
  () => 10n,
  () => Object.create(null),
  () => new Map(),
  () => new (class Thing {})(),
  () => ({ type: "text", text: "x" }),
  () => ({ type: "opaque", block: {} }),
  () => ({ type: "image", source: { type: "file", fileId: "f" } }),
  () => ({ type: "base64", mediaType: "", data: "" }),
  () => ({ owner: "u", number: 1 }),
  () => JSON.parse('{"__proto__": {"a": 1}}'),
];

/** Richer blocks than the trajectories carry: every shape, with `extra`, nested JSON. */
const jsonArbitrary: fc.Arbitrary<JsonValue> = fc.jsonValue({
  maxDepth: 4,
}) as fc.Arbitrary<JsonValue>;
const jsonObjectArbitrary = fc.dictionary(fc.string({ maxLength: 6 }), jsonArbitrary, {
  maxKeys: 4,
});
const extraFields = fc.option(
  jsonObjectArbitrary.map((extra) => ({ extra })),
  { nil: {} as Record<string, never> },
);
const sourceArbitrary = fc.oneof(
  fc.record({
    type: fc.constant("base64"),
    mediaType: fc.constant("image/png"),
    data: fc.string(),
  }),
  fc.record({ type: fc.constant("url"), url: fc.webUrl() }),
  fc.record({ type: fc.constant("file"), fileId: fc.string({ minLength: 1, maxLength: 8 }) }),
);
const resultPartArbitrary = fc.oneof(
  fc.tuple(fc.string(), extraFields).map(([text, extra]) => ({ type: "text", text, ...extra })),
  fc
    .tuple(sourceArbitrary, extraFields)
    .map(([source, extra]) => ({ type: "image", source, ...extra })),
  jsonObjectArbitrary.map((block) => ({ type: "opaque", block })),
);
const blockArbitrary = fc.oneof(
  resultPartArbitrary,
  fc
    .tuple(fc.string(), fc.string(), extraFields)
    .map(([thinking, signature, extra]) => ({ type: "thinking", thinking, signature, ...extra })),
  fc
    .tuple(fc.string(), extraFields)
    .map(([data, extra]) => ({ type: "redacted_thinking", data, ...extra })),
  fc
    .tuple(fc.string({ minLength: 1, maxLength: 8 }), jsonObjectArbitrary, extraFields)
    .map(([id, input, extra]) => ({ type: "tool_use", id, name: "tool", input, ...extra })),
  fc
    .tuple(
      fc.oneof(fc.string(), fc.array(resultPartArbitrary, { maxLength: 3 })),
      fc.boolean(),
      fc.option(
        fc.string().map((compactSummary) => ({ compactSummary })),
        { nil: {} },
      ),
      extraFields,
    )
    .map(([content, isError, summary, extra]) => ({
      type: "tool_result",
      toolUseId: "toolu_1",
      content,
      isError,
      ...summary,
      ...extra,
    })),
) as fc.Arbitrary<ContentBlock>;

const richMessageArbitrary: fc.Arbitrary<Message> = fc
  .record({
    role: fc.constantFrom("user" as const, "assistant" as const),
    id: fc.string({ minLength: 1, maxLength: 8 }),
    sessionId: fc.constant("s"),
    turnId: fc.record({ owner: fc.constantFrom("u", "x"), number: fc.nat() }),
    createdAt: fc.date({ noInvalidDate: true }),
    content: fc.array(blockArbitrary, { minLength: 1, maxLength: 4 }),
  })
  .map((message) => message as Message);

/** Valid messages: some from agent trajectories, some with every kind of block. */
const validMessagesArbitrary: fc.Arbitrary<Message[]> = fc.oneof(
  trajectoryArbitrary({ maxTurns: 3, maxStepsPerTurn: 2 }),
  fc.array(richMessageArbitrary, { minLength: 1, maxLength: 3 }),
);

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** Every path into a value's objects and arrays (not into Dates), the root included. */
function pathsOf(value: unknown, path: Path = [], into: Path[] = []): Path[] {
  into.push(path);
  if (typeof value === "object" && value !== null && !(value instanceof Date)) {
    for (const key of Object.keys(value)) {
      pathsOf(
        (value as Record<string, unknown>)[key],
        [...path, Array.isArray(value) ? Number(key) : key],
        into,
      );
    }
  }
  return into;
}

function at(root: unknown, path: Path): unknown {
  let value = root;
  for (const key of path) value = (value as Record<string | number, unknown>)[key];
  return value;
}

type Mutation =
  | { kind: "replace"; junk: number }
  | { kind: "boundary"; pick: number }
  | { kind: "delete" }
  | { kind: "add"; key: string; junk: number }
  | { kind: "proto"; junk: number }
  | { kind: "symbol" }
  | { kind: "prototype" };

const ADDED_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "extra",
  "compactSummary",
  "type",
  "toString",
];

const mutationArbitrary: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.nat(JUNK.length - 1).map((junk) => ({ kind: "replace" as const, junk })),
  },
  { weight: 6, arbitrary: fc.nat().map((pick) => ({ kind: "boundary" as const, pick })) },
  { weight: 2, arbitrary: fc.constant({ kind: "delete" as const }) },
  {
    weight: 2,
    arbitrary: fc
      .record({
        key: fc.constantFrom(...ADDED_KEYS),
        // Often `undefined`: what exact-optional keys must refuse.
        junk: fc.oneof(fc.constant(0), fc.nat(JUNK.length - 1)),
      })
      .map(({ key, junk }) => ({ kind: "add" as const, key, junk })),
  },
  {
    weight: 1,
    arbitrary: fc.nat(JUNK.length - 1).map((junk) => ({ kind: "proto" as const, junk })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "symbol" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "prototype" as const }) },
);

/** A value of the same kind as `value` that sits just outside what the schema allows. */
function boundary(value: unknown, pick: number): unknown {
  const choose = (options: readonly unknown[]) => options[pick % options.length];
  if (typeof value === "string") return choose(["", 1, undefined]);
  if (typeof value === "number")
    return choose([-1, 1.5, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY]);
  if (typeof value === "boolean") return choose(["true", 0, undefined]);
  if (value instanceof Date)
    return choose([new Date(Number.NaN), value.getTime(), value.toISOString()]);
  if (Array.isArray(value)) return choose([[], {}, [undefined]]);
  return choose([{}, [], undefined, null]);
}

/** Applies `mutation` at `path` of `root` (a fresh copy), returning the new root. */
function mutate(root: unknown, path: Path, mutation: Mutation): unknown {
  const target = at(root, path);
  const parentPath = path.slice(0, -1);
  const key = path.at(-1);
  const parent = at(root, parentPath) as Record<string | number, unknown>;
  const junk = (index: number) => (JUNK[index] as () => unknown)();
  switch (mutation.kind) {
    case "replace":
      if (key === undefined) return junk(mutation.junk);
      parent[key] = junk(mutation.junk);
      return root;
    case "boundary":
      if (key === undefined) return boundary(target, mutation.pick);
      parent[key] = boundary(target, mutation.pick);
      return root;
    case "delete":
      if (key !== undefined) delete parent[key];
      return root;
    case "add":
    case "proto":
    case "symbol":
    case "prototype": {
      if (typeof target !== "object" || target === null || target instanceof Date) return root;
      try {
        if (mutation.kind === "add") {
          Object.defineProperty(target, mutation.key, {
            value: junk(mutation.junk),
            enumerable: true,
            configurable: true,
            writable: true,
          });
        } else if (mutation.kind === "proto") {
          Object.defineProperty(target, "__proto__", {
            value: junk(mutation.junk),
            enumerable: true,
          });
        } else if (mutation.kind === "symbol") {
          Object.defineProperty(target, Symbol("key"), {
            value: "v",
            enumerable: true,
            configurable: true,
          });
        } else {
          Object.setPrototypeOf(target, Array.isArray(target) ? Object.prototype : Array.prototype);
        }
      } catch {
        // Some targets refuse the key (a function's own properties): leave them as they are.
      }
      return root;
    }
  }
}

const mutatedArbitrary = fc
  .tuple(
    validMessagesArbitrary,
    fc.nat(),
    fc.nat(),
    fc.array(mutationArbitrary, { minLength: 1, maxLength: 2 }),
  )
  .map(([messages, pick, where, mutations]) => {
    let message: unknown = clone(messages[pick % messages.length]);
    for (const [index, mutation] of mutations.entries()) {
      const paths = pathsOf(message);
      try {
        message = mutate(message, paths[(where + index * 7919) % paths.length] as Path, mutation);
      } catch {
        // A read-only key (an earlier mutation's): keep the value as it is.
      }
    }
    return message;
  });

/** Whether the schema accepts `value`; zod throws on some objects (a fake Date): a refusal. */
function schemaAccepts(value: unknown): boolean {
  try {
    return MessageSchema.safeParse(value).success;
  } catch {
    return false;
  }
}

function parseOutcome(value: unknown, subject: string): string {
  try {
    parseOrThrow(MessagesSchema, value, subject);
    return "accepted";
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

function assertOutcome(value: unknown, subject: string): string {
  try {
    assertMessages(value, subject);
    return "accepted";
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

describe("isWellFormedMessage", () => {
  it("accepts every valid generated message, so the fast path is the one taken", () => {
    fc.assert(
      fc.property(validMessagesArbitrary, (messages) => {
        for (const message of messages) {
          expect(MessageSchema.safeParse(message).success).toBe(true);
          expect(isWellFormedMessage(message)).toBe(true);
        }
      }),
      { seed: SEED, numRuns: 1500 },
    );
  });

  it("never accepts what MessageSchema refuses, over mutated messages", () => {
    const tally = { fastAndSchema: 0, schemaOnly: 0, neither: 0 };
    fc.assert(
      fc.property(mutatedArbitrary, (message) => {
        const fast = isWellFormedMessage(message);
        const schema = schemaAccepts(message);
        if (fast) expect(schema).toBe(true);
        if (fast) tally.fastAndSchema += 1;
        else if (schema) tally.schemaOnly += 1;
        else tally.neither += 1;
      }),
      { seed: SEED, numRuns: 5000 },
    );
    // Not vacuous: mutations both keep and break messages.
    expect(tally.fastAndSchema).toBeGreaterThan(200);
    expect(tally.neither).toBeGreaterThan(1000);
  });

  it("leaves values it does not vouch for to the schema, without throwing", () => {
    const valid: Message = {
      role: "user",
      id: "m1",
      sessionId: "s",
      turnId: { owner: "u", number: 1 },
      createdAt: new Date(0),
      content: [{ type: "tool_use", id: "t", name: "n", input: {} }],
    };
    const withInput = (input: unknown) => ({ ...valid, content: [{ ...valid.content[0], input }] });
    let deep: JsonValue = 1;
    for (let depth = 0; depth < MAX_JSON_DEPTH + 5; depth += 1) deep = { a: [deep] };
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const cases: [string, unknown, boolean][] = [
      ["valid", valid, true],
      ["deep JSON (accepted by the schema)", withInput(deep), false],
      ["a fake Date", { ...valid, createdAt: Object.create(Date.prototype) }, false],
      [
        "an unsafe integer turn number",
        { ...valid, turnId: { owner: "u", number: 2 ** 53 } },
        false,
      ],
      ["a class instance as message", Object.assign(new (class M {})(), valid), false],
      [
        "exact-optional extra set to undefined",
        { ...valid, content: [{ type: "text", text: "x", extra: undefined }] },
        false,
      ],
    ];
    for (const [name, value, expected] of cases) {
      expect(isWellFormedMessage(value), name).toBe(expected);
    }
    expect(MessageSchema.safeParse(withInput(deep)).success).toBe(true);
    expect(isWellFormedMessage(withInput(cyclic))).toBe(false);
  });
});

describe("isWellFormedMessage, rule by rule", () => {
  const message = (content: unknown[]): Record<string, unknown> => ({
    role: "assistant",
    id: "m1",
    sessionId: "s",
    turnId: { owner: "u", number: 0 },
    createdAt: new Date(0),
    content,
  });
  const image = (source: unknown) => message([{ type: "image", source }]);
  const result = (fields: Record<string, unknown>) =>
    message([{ type: "tool_result", toolUseId: "t", content: "ok", isError: false, ...fields }]);
  const refused: [string, unknown][] = [
    ["empty mediaType", image({ type: "base64", mediaType: "", data: "x" })],
    ["missing data", image({ type: "base64", mediaType: "image/png" })],
    ["empty url", image({ type: "url", url: "" })],
    ["empty fileId", image({ type: "file", fileId: "" })],
    ["unknown source type", image({ type: "path", path: "/x" })],
    ["compactSummary undefined", result({ compactSummary: undefined })],
    ["compactSummary a number", result({ compactSummary: 1 })],
    ["extra undefined", result({ extra: undefined })],
    ["extra an array", result({ extra: [] })],
    ["isError missing", result({ isError: undefined })],
    ["empty toolUseId", result({ toolUseId: "" })],
    [
      "tool_result content holding a tool_use",
      result({ content: [{ type: "tool_use", id: "t", name: "n", input: {} }] }),
    ],
    ["empty tool name", message([{ type: "tool_use", id: "t", name: "", input: {} }])],
    ["tool input an array", message([{ type: "tool_use", id: "t", name: "n", input: [] }])],
    ["thinking without signature", message([{ type: "thinking", thinking: "x" }])],
    ["redacted thinking without data", message([{ type: "redacted_thinking" }])],
    ["opaque block not an object", message([{ type: "opaque", block: "x" }])],
    ["JSON with NaN", message([{ type: "opaque", block: { n: Number.NaN } }])],
    ["JSON with undefined", message([{ type: "opaque", block: { n: [undefined] } }])],
    ["JSON with a Date", message([{ type: "opaque", block: { n: new Date(0) } }])],
    [
      "negative turn number",
      { ...message([{ type: "text", text: "x" }]), turnId: { owner: "u", number: -1 } },
    ],
    ["empty content", message([])],
    ["system role", { ...message([{ type: "text", text: "x" }]), role: "system" }],
    [
      "a getTime posing as a Date",
      { ...message([{ type: "text", text: "x" }]), createdAt: { getTime: () => 0 } },
    ],
  ];
  it.each(refused)("refuses %s, as the schema does", (_name, value) => {
    expect(schemaAccepts(value)).toBe(false);
    expect(isWellFormedMessage(value)).toBe(false);
  });
  it("accepts each valid block shape", () => {
    const valid = [
      image({ type: "file", fileId: "f" }),
      result({ compactSummary: "s", extra: { a: [1, null, { b: "c" }] } }),
      result({
        content: [
          { type: "opaque", block: {} },
          { type: "image", source: { type: "url", url: "u" } },
        ],
      }),
      message([
        { type: "opaque", block: { type: "server_tool_use" }, extra: "ignored by the schema" },
      ]),
    ];
    for (const value of valid) {
      expect(schemaAccepts(value)).toBe(true);
      expect(isWellFormedMessage(value)).toBe(true);
    }
  });
});

describe("assertMessages with the fast check", () => {
  it("accepts and refuses exactly what MessagesSchema does, with the same error", () => {
    const listArbitrary = fc.oneof(
      validMessagesArbitrary,
      fc.array(fc.oneof(mutatedArbitrary, richMessageArbitrary), { minLength: 1, maxLength: 4 }),
      // Duplicate ids (and the same object twice).
      validMessagesArbitrary.map((messages) => [...messages, messages[0]]),
      validMessagesArbitrary.map((messages) => [...messages, clone(messages.at(-1))]),
    );
    fc.assert(
      fc.property(listArbitrary, (messages) => {
        const expected = parseOutcome(messages, "conversation");
        expect(assertOutcome(messages, "conversation")).toBe(expected);
        // Again, now that some may be known-valid.
        expect(assertOutcome(messages, "conversation")).toBe(expected);
      }),
      { seed: SEED, numRuns: 1500 },
    );
  });
});

describe("hasUniqueIds", () => {
  const bySet = (ids: readonly string[]) => new Set(ids).size === ids.length;
  const wrap = (ids: readonly string[]) => ids.map((id) => ({ id }));

  it("agrees with a Set, sorted or not, short ids or long", () => {
    const idArbitrary = fc.oneof(
      fc.string({ maxLength: 3, unit: fc.constantFrom("a", "b", "c") }),
      fc.nat(40).map((n) => `${"p".repeat(40)}-${n}-${"s".repeat(40)}`),
      fc.uuid(),
    );
    fc.assert(
      fc.property(fc.array(idArbitrary, { maxLength: 60 }), fc.boolean(), (ids, sort) => {
        const list = sort ? [...ids].sort() : ids;
        expect(hasUniqueIds(wrap(list))).toBe(bySet(list));
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it("stays right when every id hashes alike (falls back to a Set)", () => {
    const middle = (n: number) => `${"a".repeat(40)}${String(n).padStart(6, "0")}${"z".repeat(40)}`;
    const ids = Array.from({ length: 3000 }, (_, n) => middle((n * 7919) % 3000));
    expect(hasUniqueIds(wrap(ids))).toBe(true);
    expect(hasUniqueIds(wrap([...ids, middle(42)]))).toBe(false);
  });
});
