import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { LazilyCompiled, messageCount } from "./compiled-schema.js";

describe("LazilyCompiled", () => {
  const schema = z.array(z.object({ id: z.string().check(z.minLength(1)) }));

  const items = (count: number) => Array.from({ length: count }, () => ({ id: "a" }));

  it("answers with the runtime schema until the items would pass the bound, then compiled", () => {
    const lazily = new LazilyCompiled(schema, 10);
    expect(lazily.for(items(4))).toBe(schema);
    expect(lazily.for({ messages: items(5) })).toBe(schema);
    const compiled = lazily.for({ id: "a" });
    expect(compiled).not.toBe(schema);
    expect(lazily.for(items(1_000))).toBe(compiled);
  });

  it("compiles at once for a value larger than the bound", () => {
    expect(new LazilyCompiled(schema, 10).for(items(10))).not.toBe(schema);
  });

  it("the compiled schema gives the runtime one's answers and issues", () => {
    const compiled = new LazilyCompiled(schema, 0).for([]);
    expect(z.validate(compiled, [{ id: "a" }])).toBe(true);
    expect(compiled.parse([{ id: "a", extra: 1 }])).toEqual([{ id: "a" }]);
    const bad = [{ id: "a" }, { id: "" }];
    expect(z.validate(compiled, bad)).toBe(false);
    expect(compiled.safeParse(bad).error?.issues).toEqual(schema.safeParse(bad).error?.issues);
  });
});

describe("messageCount", () => {
  it("counts an array's items, an object's messages, and anything else as one", () => {
    expect(messageCount([1, 2, 3])).toBe(3);
    expect(messageCount({ messages: [1, 2] })).toBe(2);
    expect(messageCount({ messages: "x" })).toBe(1);
    expect(messageCount(null)).toBe(1);
  });
});
