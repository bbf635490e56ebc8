import { describe, expect, it } from "vitest";
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
      { path: [], message: 'Unrecognized key: "bogus"' },
    ]);
    expect(safeParse(schema, {}).error?.issues[0]?.message).toBe(
      "Invalid input: expected string, received undefined",
    );
    expect(z.config().localeError).toBeUndefined();
    expect(schema.safeParse({}).error?.issues[0]?.message).toBe("Invalid input");
  });
});
