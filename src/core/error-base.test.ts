import { describe, expect, it } from "vitest";
import { StoreError } from "../store/store-error.js";
import { AgentCompactionError, CompactionError, ValidationError } from "./errors.js";

describe("the errors share one base", () => {
  const cause = new Error("underneath");
  const errors = [
    new CompactionError("timeout", "too slow", { cause }),
    new ValidationError("options", [{ path: ["threshold"], message: "must be a number" }], {
      cause,
    }),
    new StoreError("io_error", "s-1", "connection lost", { cause }),
  ] as const;

  it.each(errors)("%s: a code, the cause, its own name", (error) => {
    expect(error).toBeInstanceOf(AgentCompactionError);
    expect(error).toBeInstanceOf(Error);
    expect(error.cause).toBe(cause);
    expect(typeof error.code).toBe("string");
    expect(error.name).toBe(error.constructor.name);
  });

  it("each guard knows its own class only, called unbound too", () => {
    const [compaction, validation, store] = errors;
    const guards = [CompactionError.isInstance, ValidationError.isInstance, StoreError.isInstance];
    expect(guards.map((guard) => guard(compaction))).toEqual([true, false, false]);
    expect(guards.map((guard) => guard(validation))).toEqual([false, true, false]);
    expect(guards.map((guard) => guard(store))).toEqual([false, false, true]);
    expect(validation.code).toBe("invalid_input");
  });

  it("each guard recognises its class from another copy of the package by its marker", () => {
    for (const name of ["CompactionError", "ValidationError", "StoreError"] as const) {
      const foreign = Object.assign(new Error("x"), {
        [Symbol.for(`agent-compaction.${name}`)]: true,
      });
      const guard = { CompactionError, ValidationError, StoreError }[name].isInstance;
      expect(guard(foreign)).toBe(true);
      expect(guard(new Error("x"))).toBe(false);
      expect(guard(null)).toBe(false);
    }
  });
});
