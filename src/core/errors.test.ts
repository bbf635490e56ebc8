import { describe, expect, it } from "vitest";
import { en } from "zod/locales";
import * as z from "zod/mini";
import { CompactionError, parseOrThrow, safeParse, ValidationError } from "./errors.js";

describe("errors", () => {
  it("CompactionError carries a code and a cause, and is recognised across copies", () => {
    const cause = new Error("429");
    const error = new CompactionError("llm_error", "failed", { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("CompactionError");
    expect(error.code).toBe("llm_error");
    expect(error.cause).toBe(cause);
    expect(CompactionError.isInstance(error)).toBe(true);
    const foreign = Object.assign(new Error("x"), {
      [Symbol.for("agent-compaction.CompactionError")]: true,
    });
    expect(CompactionError.isInstance(foreign)).toBe(true);
    expect(CompactionError.isInstance(new Error("x"))).toBe(false);
    expect(CompactionError.isInstance(null)).toBe(false);
  });

  it("ValidationError names every offending path in its message", () => {
    const error = new ValidationError("messages", [
      { path: [3, "turnId", "number"], message: "must be a whole number" },
      { path: [], message: "must be an array" },
    ]);
    expect(error.message).toBe(
      "Invalid messages: [3].turnId.number: must be a whole number; must be an array",
    );
    expect(ValidationError.isInstance(error)).toBe(true);
  });

  it("words the issues no schema words in zod's English, without setting zod's global locale", () => {
    // zod/mini loads no locale: without the one each parse carries, these read "Invalid input".
    const schema = z.strictObject({ id: z.string(), kind: z.literal("text") });
    const thrown = (() => {
      try {
        parseOrThrow(schema, { id: 1, kind: "image", bogus: true }, "block");
      } catch (error) {
        return error as ValidationError;
      }
      return undefined;
    })();
    expect(thrown?.issues).toEqual([
      { path: ["id"], message: "Invalid input: expected string, received number" },
      { path: ["kind"], message: 'Invalid input: expected "text"' },
      { path: ["bogus"], message: 'Unrecognized key: "bogus"' },
    ]);
    expect(safeParse(schema, {}).error?.issues[0]?.message).toBe(
      "Invalid input: expected string, received undefined",
    );
    expect(z.config().localeError).toBeUndefined();
    expect(schema.safeParse({}).error?.issues[0]?.message).toBe("Invalid input");
  });
});

describe("an unknown key", () => {
  it("is named by its path, each of several apart, nested ones under their object", () => {
    const schema = z.strictObject({ inner: z.strictObject({ a: z.number() }) });
    let thrown: ValidationError | undefined;
    try {
      parseOrThrow(schema, { inner: { a: 1, b: 2 }, c: 3, d: 4 }, "options");
    } catch (error) {
      thrown = error as ValidationError;
    }
    expect(thrown?.issues).toEqual(
      expect.arrayContaining([
        { path: ["inner", "b"], message: 'Unrecognized key: "b"' },
        { path: ["c"], message: 'Unrecognized key: "c"' },
        { path: ["d"], message: 'Unrecognized key: "d"' },
      ]),
    );
    expect(thrown?.issues).toHaveLength(3);
  });
});

describe("the English messages of issues no schema words", () => {
  it("are zod's English locale's, word for word, for every issue our kinds of schema raise", () => {
    const zodEnglish = en().localeError;
    class Thing {}
    const cases: [z.ZodMiniType, unknown][] = [
      [z.number(), "x"],
      [z.number(), Number.NaN],
      [z.number(), Number.POSITIVE_INFINITY],
      [z.string(), null],
      [z.string(), [1]],
      [z.string(), new Thing()],
      [z.string(), new Date(0)],
      [z.string(), 10n],
      [z.boolean(), undefined],
      [z.enum(["a", "b"]), "c"],
      [z.literal("a"), "b"],
      [z.literal(3), 4],
      [z.string().check(z.minLength(2)), "x"],
      [z.string().check(z.maxLength(1)), "xy"],
      [z.string().check(z.length(2)), "x"],
      [z.array(z.number()).check(z.maxLength(1)), [1, 2]],
      [z.array(z.number()).check(z.minLength(1)), []],
      [z.number().check(z.gte(5)), 4],
      [z.number().check(z.gt(5)), 5],
      [z.number().check(z.lte(5)), 6],
      [z.number().check(z.lt(5)), 5],
      [z.number().check(z.multipleOf(3)), 4],
      [z.strictObject({ a: z.number() }), { a: 1, b: 2 }],
      [z.strictObject({ a: z.number() }), { a: 1, b: 2, c: 3 }],
      [z.union([z.string(), z.number()]), true],
      [
        z.discriminatedUnion("kind", [
          z.object({ kind: z.literal("a") }),
          z.object({ kind: z.literal("b") }),
        ]),
        { kind: "c" },
      ],
      [z.record(z.enum(["a"]), z.number()), { b: 1 }],
      [z.custom(() => false), 1],
    ];
    for (const [schema, value] of cases) {
      const ours = safeParse(schema, value);
      const theirs = schema.safeParse(value, { error: zodEnglish });
      expect(ours.success).toBe(false);
      expect(ours.error?.issues.map((issue) => issue.message)).toEqual(
        theirs.error?.issues.map((issue) => issue.message),
      );
    }
  });
});
