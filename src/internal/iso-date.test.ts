import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { seed } from "../../test/properties/invariants.js";
import { isIsoDateTime } from "./iso-date.js";

/** What the snapshot and store schemas took before: zod's own check. */
const ZOD_DATE_TIME = z.iso.datetime({ offset: true });

const zodTakes = (text: string): boolean => z.safeParse(ZOD_DATE_TIME, text).success;

const padded = (max: number, width: number) =>
  fc.integer({ min: 0, max }).map((value) => String(value).padStart(width, "0"));

/** Date-times near the valid ones: every field at and past its bounds, optional parts varied. */
const nearDateTime: fc.Arbitrary<string> = fc
  .record({
    year: fc.oneof(padded(9999, 4), fc.constantFrom("1900", "2000", "2024", "2100", "0000", "99")),
    month: padded(13, 2),
    day: fc.oneof(padded(32, 2), fc.constantFrom("29", "30", "31", "1")),
    separator: fc.constantFrom("T", "T", "T", "t", " "),
    hour: padded(25, 2),
    minute: padded(61, 2),
    second: fc.option(padded(61, 2), { nil: undefined }),
    fraction: fc.option(fc.stringMatching(/^\d{0,10}$/), { nil: undefined }),
    offset: fc.oneof(
      fc.constantFrom("Z", "z", "", "+05", "+0530", "-00:00"),
      fc
        .tuple(fc.constantFrom("+", "-"), padded(25, 2), padded(61, 2))
        .map(([sign, hours, minutes]) => `${sign}${hours}:${minutes}`),
    ),
  })
  .map(
    (parts) =>
      `${parts.year}-${parts.month}-${parts.day}${parts.separator}${parts.hour}:${parts.minute}` +
      `${parts.second === undefined ? "" : `:${parts.second}`}` +
      `${parts.fraction === undefined ? "" : `.${parts.fraction}`}${parts.offset}`,
  );

describe("isIsoDateTime", () => {
  it("takes what zod's z.iso.datetime({ offset: true }) takes, and only that", () => {
    fc.assert(
      fc.property(fc.oneof(nearDateTime, nearDateTime, fc.string()), (text) => {
        expect(isIsoDateTime(text)).toBe(zodTakes(text));
      }),
      { numRuns: 20_000, seed: seed(31_0613) },
    );
  });

  it("knows the days of each month, leap years included", () => {
    for (const [text, valid] of [
      ["2024-02-29T00:00:00Z", true],
      ["2000-02-29T00:00:00Z", true],
      ["1900-02-29T00:00:00Z", false],
      ["2026-02-29T00:00:00Z", false],
      ["2026-04-31T00:00:00Z", false],
      ["2026-12-31T23:59:59.999+14:00", true],
      ["2026-00-10T00:00:00Z", false],
    ] as const) {
      expect(isIsoDateTime(text)).toBe(valid);
      expect(zodTakes(text)).toBe(valid);
    }
  });
});
