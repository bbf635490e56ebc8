import type { HostilePath } from "./hostile-paths.js";

// Deliberately quadratic paths, one for each way work can grow that the hostile-text check
// watches: the check must flag every one of them (hostile-text.test.ts), or it can no longer fail.

const QUADRATIC = "deliberately quadratic";

/** The trim facts-check.ts once had: V8 tries `/[…]+$/` at every start in a run of dots. */
export const TRAILING_PUNCTUATION = /[.!?;:,]+$/;

/** A regular expression that backtracks quadratically: V8's backtrack count must report it. */
export const BACKTRACKING_PATH: HostilePath = {
  name: "the old trim of trailing punctuation",
  group: QUADRATIC,
  text: "dots",
  prepare: (text) => () => text.replace(TRAILING_PUNCTUATION, ""),
};

/** Quadratic work the meter counts: each must outgrow the limit. */
export const COUNTED_QUADRATIC_PATHS: readonly HostilePath[] = [
  {
    name: "a built-in search per item (unique words by indexOf)",
    group: QUADRATIC,
    text: "distinct identifiers",
    prepare: (text) => {
      const words = text.split(" ");
      return () => words.filter((word, index) => words.indexOf(word) === index);
    },
  },
  {
    name: "a search of the whole text per item (each word looked up in the text)",
    group: QUADRATIC,
    text: "distinct identifiers",
    prepare: (text) => {
      const words = text.split(" ");
      return () => words.filter((word) => text.includes(`${word}!`));
    },
  },
  {
    name: "a loop in a loop (each line compared with every earlier one)",
    group: QUADRATIC,
    text: "numbered lines",
    prepare: (text) => {
      const lines = text.split("\n");
      return () => {
        let repeats = 0;
        for (let line = 0; line < lines.length; line += 1)
          for (let earlier = 0; earlier < line; earlier += 1)
            if (lines[earlier] === lines[line]) repeats += 1;
        return repeats;
      };
    },
  },
];

export const QUADRATIC_PATHS: readonly HostilePath[] = [
  BACKTRACKING_PATH,
  ...COUNTED_QUADRATIC_PATHS,
];
