import { describe, expect, it } from "vitest";
import type { ContentBlock } from "./message.js";
import {
  archivedNote,
  EARLIER_USER_MESSAGE_PREFIX,
  splitSummary,
  TRIM_NOTICE,
} from "./summary-format.js";

const text = (value: string): ContentBlock => ({ type: "text", text: value });
const texts = (blocks: readonly ContentBlock[]) =>
  blocks.map((block) => (block.type === "text" ? block.text : block.type));

const NOTE = `${archivedNote(5)} [recall r4449564948552315-0a85]`;
const WORDS = `${EARLIER_USER_MESSAGE_PREFIX}Never touch vendor/.`;
const REQUEST = "Now fix the parser.";

describe("the archive's note in a summary or notice", () => {
  it("is the library's as a block of its own, and what follows it is the user's", () => {
    const { library, rest } = splitSummary([
      text(TRIM_NOTICE),
      text(WORDS),
      text(NOTE),
      text(REQUEST),
    ]);
    expect(library.map(texts)).toEqual([[TRIM_NOTICE, WORDS, NOTE]]);
    expect(texts(rest)).toEqual([REQUEST]);
  });

  it("ends the library's text when a client joined it with the request", () => {
    for (const separator of ["\n\n", " ", "\r\n\r\n", "\n"]) {
      const joined = [TRIM_NOTICE, WORDS, `${NOTE}${separator}${REQUEST}`].join("\n\n");
      const { library, rest } = splitSummary([text(joined)]);
      expect(library.map(texts), JSON.stringify(separator)).toEqual([[TRIM_NOTICE, WORDS, NOTE]]);
      expect(texts(rest), JSON.stringify(separator)).toEqual([REQUEST]);
    }
  });

  it("ends the library's text when a client joined every part with a line break", () => {
    for (const separator of ["\n", "\n\n", " "]) {
      const joined = [TRIM_NOTICE, WORDS, `${NOTE}${separator}${REQUEST}`].join("\n");
      const { library, rest } = splitSummary([text(joined)]);
      expect(library.map(texts), JSON.stringify(separator)).toEqual([[TRIM_NOTICE, WORDS, NOTE]]);
      expect(texts(rest), JSON.stringify(separator)).toEqual([REQUEST]);
    }
  });

  it("is the user's without its mark, or with a mark that does not parse", () => {
    for (const quoted of [
      `${archivedNote(3)} What does this line mean?`,
      `${archivedNote(3)} [recall r12345678901234567-0a85]`,
      `${archivedNote(3)} [recall r1-0A85]`,
    ]) {
      const { library, rest } = splitSummary([text(TRIM_NOTICE), text(WORDS), text(quoted)]);
      expect(library.map(texts), quoted).toEqual([[TRIM_NOTICE, WORDS]]);
      expect(texts(rest), quoted).toEqual([quoted]);
    }
  });
});
