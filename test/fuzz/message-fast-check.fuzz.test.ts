import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { assertCompactArguments, validatedEstimate } from "../../src/core/entry-validation.js";
import { parseOrThrow, ValidationError } from "../../src/core/errors.js";
import { exchangeIssues, exchangesWhole } from "../../src/core/exchanges.js";
import type { Message } from "../../src/core/message.js";
import { fastMessageTokens } from "../../src/core/message-fast-check.js";
import { MessageSchema, MessagesSchema } from "../../src/core/schemas.js";
import { estimateContentTokens } from "../../src/core/tokens.js";
import { checkedJsonObjectLength, jsonLength } from "../../src/internal/json-length.js";
import { isJsonObject, jsonObjectIssues } from "../../src/internal/json-value.js";
import { idsDistinct } from "../../src/internal/unique-ids.js";
import { trajectoryArbitrary } from "../arbitraries/trajectory.js";
import { seed } from "../properties/invariants.js";
import { modelJsonLength } from "../support/json-length-model.js";
import { oneChanged, replacementArbitrary } from "../support/mutation.js";

/**
 * The hand-written fast path in front of the message schema (`message-fast-check.ts`, and the
 * first check of a conversation in `entry-validation.ts`) against the validator it stands in
 * front of: the schema alone, as `validatedEstimate` ran before it. Same inputs accepted and
 * refused, the same issues, the same estimate.
 */

/** Values some field accepts: a change to one may keep the conversation valid, or not. */
const PLAUSIBLE: readonly unknown[] = [
  "",
  "x",
  0,
  1,
  -0,
  2.5,
  true,
  false,
  null,
  undefined,
  [],
  {},
  new Date(0),
  Object.create(null),
  Object.create(Date.prototype),
  { type: "text", text: "t" },
  { type: "opaque", block: { type: "x" } },
  { type: "image", source: { type: "file", fileId: "f" } },
  { type: "tool_result", toolUseId: "t", content: [{ type: "text", text: "x" }], isError: false },
];

const replacements = replacementArbitrary(PLAUSIBLE);

/**
 * What a check made of `value`: its estimate, the issues it refused it with, or what else it
 * threw (zod's date check throws on an object made from `Date.prototype`, before and after).
 */
type Outcome = { tokens: number } | { issues: ValidationError["issues"] } | { thrown: string };

function outcome(check: () => number): Outcome {
  try {
    return { tokens: check() };
  } catch (error) {
    if (ValidationError.isInstance(error)) return { issues: error.issues };
    return { thrown: String(error) };
  }
}

/** The estimate without the library's memo: the sum of each message's. */
function plainEstimate(messages: readonly Message[]): number {
  let tokens = 0;
  for (const message of messages) tokens += estimateContentTokens(message.content);
  return tokens;
}

/** The check as it was before the fast path: the schema, then the estimate. */
function schemaEstimate(value: unknown): number {
  if (!z.validate(MessagesSchema, value)) parseOrThrow(MessagesSchema, value, "conversation");
  return plainEstimate(value as Message[]);
}

function schemaCompactArguments(value: unknown): number {
  const tokens = schemaEstimate(value);
  const issues = exchangeIssues(value as Message[]);
  if (issues.length > 0) throw new ValidationError("conversation", issues);
  return tokens;
}

/** A few broken (or still valid) versions of a conversation, each new objects where it changed. */
function variants(messages: Message[], pick: number, replacement: unknown, other: number) {
  const index = other % messages.length;
  return [
    oneChanged(messages, pick, replacement),
    [...messages, messages[index]],
    messages.map((message, at) => (at === index ? messages[0] : message)),
    messages.filter((_, at) => at !== index),
    messages.toReversed(),
    [...messages],
  ];
}

describe("the fast message check agrees with the schema it stands in front of", () => {
  it("accepts a message only when the schema does, with the estimate the library counts", () => {
    let accepted = 0;
    fc.assert(
      fc.property(
        trajectoryArbitrary(),
        fc.nat(),
        replacements,
        (messages: Message[], pick, replacement) => {
          for (const value of [...messages, oneChanged(messages, pick, replacement)]) {
            const candidates = Array.isArray(value) ? value : [value];
            for (const candidate of candidates) {
              const tokens = fastMessageTokens(candidate);
              if (tokens < 0) continue;
              accepted += 1;
              expect(MessageSchema.safeParse(candidate).success).toBe(true);
              expect(tokens).toBe(estimateContentTokens((candidate as Message).content));
            }
          }
        },
      ),
      { seed: seed(20_261_205), numRuns: 300 },
    );
    expect(accepted).toBeGreaterThan(1000);
  });

  it("validatedEstimate and the compaction entry check answer as the schema alone: same acceptance, issues and estimate", () => {
    let refused = 0;
    let passed = 0;
    fc.assert(
      fc.property(
        trajectoryArbitrary(),
        fc.nat(),
        replacements,
        fc.nat(),
        (messages: Message[], pick, replacement, other) => {
          for (const value of variants(messages, pick, replacement, other)) {
            const expected = outcome(() => schemaEstimate(value));
            expect(outcome(() => validatedEstimate(value, "conversation"))).toEqual(expected);
            // Again: now through what the first check remembered.
            expect(outcome(() => validatedEstimate(value, "conversation"))).toEqual(expected);
            const compactExpected = outcome(() => schemaCompactArguments(value));
            expect(outcome(() => assertCompactArguments(value, new Map()))).toEqual(
              compactExpected,
            );
            if ("issues" in compactExpected) refused += 1;
            else passed += 1;
          }
        },
      ),
      { seed: seed(20_261_206), numRuns: 300 },
    );
    expect(refused).toBeGreaterThan(300);
    expect(passed).toBeGreaterThan(300);
  });

  it("on messages appended to a conversation checked before (one message changed)", () => {
    fc.assert(
      fc.property(
        trajectoryArbitrary(),
        fc.nat(),
        replacements,
        (messages: Message[], pick, replacement) => {
          if (messages.length < 2) return;
          const base = messages.slice(0, -1);
          validatedEstimate(base, "conversation");
          const appended = oneChanged([messages.at(-1)], pick, replacement) as unknown[];
          const grown = [...base, ...appended];
          const expected = outcome(() => schemaEstimate(grown));
          base.push(...(appended as Message[]));
          expect(outcome(() => validatedEstimate(base, "conversation"))).toEqual(expected);
        },
      ),
      { seed: seed(20_261_207), numRuns: 300 },
    );
  });

  it("hands to the schema what it does not model: null prototypes, inherited fields, undefined fields, fake dates", () => {
    const [message] = trajectoryOf();
    const cases: unknown[] = [
      Object.assign(Object.create(null), message),
      Object.assign(Object.create({ role: "user" }), { ...message, role: undefined }),
      { ...message, generated: undefined },
      { ...message, createdAt: Object.create(Date.prototype) },
      { ...message, content: [{ type: "text", text: "t", extra: undefined }] },
      { ...message, content: [{ type: "tool_use", id: "t", name: "n", input: { a: undefined } }] },
    ];
    for (const value of cases) {
      expect(outcome(() => validatedEstimate([value], "conversation"))).toEqual(
        outcome(() => schemaEstimate([value])),
      );
    }
  });

  it("with a toJSON on Object.prototype, estimates as JSON.stringify measures", () => {
    const messages = trajectoryOf();
    const prototype = Object.prototype as { toJSON?: unknown };
    prototype.toJSON = () => "x";
    try {
      const copy = messages.map((message) => ({ ...message }));
      expect(outcome(() => validatedEstimate(copy, "conversation"))).toEqual(
        outcome(() => schemaEstimate(copy)),
      );
    } finally {
      delete prototype.toJSON;
    }
  });
});

/** One valid conversation with a tool use, for the hand-written cases. */
function trajectoryOf(): Message[] {
  return fc.sample(trajectoryArbitrary(), { numRuns: 1, seed: 7 })[0]!;
}

describe("the fast exchange check agrees with exchangeIssues", () => {
  it("whole only when exchangeIssues finds nothing, broken only when it finds something", () => {
    let broken = 0;
    fc.assert(
      fc.property(trajectoryArbitrary(), fc.nat(), fc.nat(), (messages: Message[], a, b) => {
        const index = a % messages.length;
        const other = b % messages.length;
        const shapes = [
          messages,
          messages.filter((_, at) => at !== index),
          messages.map((message, at) => (at === index ? messages[other]! : message)),
          [...messages.slice(0, index), messages[other]!, ...messages.slice(index)],
        ];
        for (const shape of shapes) {
          const whole = exchangesWhole(shape);
          const issues = exchangeIssues(shape);
          if (whole === true) expect(issues).toEqual([]);
          if (whole === false) {
            expect(issues.length).toBeGreaterThan(0);
            broken += 1;
          }
        }
      }),
      { seed: seed(20_261_208), numRuns: 400 },
    );
    expect(broken).toBeGreaterThan(100);
  });
});

describe("the fast JSON checks agree with jsonObjectIssues and jsonLength", () => {
  it("isJsonObject and checkedJsonObjectLength on any value", () => {
    const valueArbitrary = fc.oneof(
      fc.jsonValue(),
      fc.anything({ withNullPrototype: true, withBoxedValues: true, withDate: true }),
      fc.object(),
    );
    fc.assert(
      fc.property(valueArbitrary, (value) => {
        const valid = jsonObjectIssues(value).length === 0;
        expect(isJsonObject(value)).toBe(valid);
        const length = checkedJsonObjectLength(value);
        if (length >= 0) {
          expect(valid).toBe(true);
          expect(length).toBe(jsonLength(value));
          expect(length).toBe(modelJsonLength(value));
        }
        if (valid && Object.getPrototypeOf(value) === Object.prototype) {
          // A plain JSON object of own keys is measured here, not handed on.
          expect(length).toBeGreaterThanOrEqual(2);
        }
      }),
      { seed: seed(20_261_209), numRuns: 2000 },
    );
  });

  it("refuses cycles and nesting past the limit, and measures escapes of long strings as JSON.stringify writes them", () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle["self"] = { back: cycle };
    expect(checkedJsonObjectLength(cycle)).toBe(-1);
    expect(isJsonObject(cycle)).toBe(false);
    let deep: Record<string, unknown> = {};
    for (let level = 0; level < 300; level += 1) deep = { inner: deep };
    expect(checkedJsonObjectLength(deep)).toBe(-1);
    expect(isJsonObject(deep)).toBe(false);
    const shared = { x: [1, 2] };
    const escaped = 'q"\\\n\u0001\ud800é😀'.repeat(10);
    const twice = { a: shared, b: shared, s: escaped, n: -12.5e-7, z: -0 };
    expect(checkedJsonObjectLength(twice)).toBe(JSON.stringify(twice).length);
    // A short string counts as its characters and quotes, escapes or not.
    const short = { 'k"': 'q"\n' };
    expect(checkedJsonObjectLength(short)).toBe(JSON.stringify(short).length - 3);
    expect(checkedJsonObjectLength(short)).toBe(modelJsonLength(short));
  });
});

describe("idsDistinct agrees with a Set", () => {
  it("on ids with repeats, and on ids made to share a hash", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 6 }), { maxLength: 300 }), (ids) => {
        const messages = ids.map((id) => ({ id }));
        expect(idsDistinct(messages)).toBe(new Set(ids).size === ids.length);
      }),
      { seed: seed(20_261_210), numRuns: 500 },
    );
    const repeats = Array.from({ length: 5000 }, (_, index) => ({ id: `${index % 2500}` }));
    expect(idsDistinct(repeats)).toBe(false);
    expect(idsDistinct(repeats.slice(0, 2500))).toBe(true);
    // Ids made to share the table's slot (FNV-1a, as the table hashes them): past its probes the
    // table hands over to a Set, and the answer stays exact.
    const fnv = (text: string) => {
      let hash = 0x811c9dc5;
      for (let index = 0; index < text.length; index += 1)
        hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
      return hash & 511;
    };
    const colliding: { id: string }[] = [];
    for (let candidate = 0; colliding.length < 200; candidate += 1)
      if (fnv(`k${candidate}`) === 0) colliding.push({ id: `k${candidate}` });
    expect(idsDistinct(colliding)).toBe(true);
    expect(idsDistinct([...colliding, colliding[150]!])).toBe(false);
    expect(idsDistinct([colliding[3]!, ...colliding])).toBe(false);
  });
});
