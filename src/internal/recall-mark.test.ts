import { describe, expect, it } from "vitest";
import {
  MAX_RECALL_MARK_LENGTH,
  RECALL_HANDLE_PATTERN,
  RECALL_MARK,
  recallHandleIn,
  recallMarkEnd,
  recallNumbersIn,
} from "./recall-mark.js";

/** What each reader of a mark or handle makes of `r<digits>-3f2a`. */
function readings(digits: string) {
  const handle = `r${digits}-3f2a`;
  const mark = `${RECALL_MARK}${handle}]`;
  const text = `[Content redacted for context management]${mark}`;
  return {
    pattern: RECALL_HANDLE_PATTERN.test(handle),
    atEnd: recallHandleIn(text) === handle,
    markEnd: recallMarkEnd(text, text.length - mark.length) === text.length,
    numbers: recallNumbersIn(text, "3f2a").length === 1,
    fits: mark.length <= MAX_RECALL_MARK_LENGTH,
  };
}

describe("recall marks and handles", () => {
  it("every reader takes a number of up to 16 digits (any number below 2^53)", () => {
    for (const digits of ["0", "7", "100000000000", String(2 ** 53 - 1), "0123456789012345"])
      expect(readings(digits)).toEqual({
        pattern: true,
        atEnd: true,
        markEnd: true,
        numbers: true,
        fits: true,
      });
    expect(recallNumbersIn(`x [recall r${2 ** 53 - 1}-3f2a] y`, "3f2a")).toEqual([2 ** 53 - 1]);
  });

  it("and no reader takes one of 17 digits or more", () => {
    for (const digits of ["01234567890123456", "12345678901234567890"])
      expect(readings(digits)).toEqual({
        pattern: false,
        atEnd: false,
        markEnd: false,
        numbers: false,
        fits: false,
      });
  });
});
