import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Message } from "../core/message.js";
import { charsToTokens } from "../core/tokens.js";
import { ConversationBuilder } from "../testing/builders.js";
import {
  checkSummaryFacts,
  DEFAULT_FACTS_SECTION_TOKENS,
  extractCitedFacts,
  extractFacts,
  type Fact,
  type FactKind,
  mayBeFact,
  tokenFacts,
} from "./facts-check.js";
import { summaryMessage } from "./summary-message.js";

const AT = new Date("2026-12-01T00:00:00Z");
const HEADING = "Facts kept from the folded part:";
const LABELS: Record<FactKind, string> = {
  constraint: "constraint",
  path: "path",
  identifier: "id",
};

function texts(facts: readonly Fact[], kind: FactKind): string[] {
  return facts.filter((fact) => fact.kind === kind).map((fact) => fact.text);
}

describe("extractFacts", () => {
  it("finds identifiers in user text, tool inputs, tool results and assistant text", () => {
    const messages = new ConversationBuilder()
      .user("Fix ABC-123 before we ship v1.2.3.")
      .toolCall({
        name: "git_show",
        input: { ref: "3f2a9c1d", options: { run: ["550e8400-e29b-41d4-a716-446655440000"] } },
        result:
          "commit 3f2a9c1d8e7b\nretryWithBackoff failed after MAX_RETRIES attempts (node 20.19.4)",
      })
      .assistant("The toolu_01A09q90qw90lq917835lq9 call hit ConversationBuilderOptionsError.")
      .build();
    expect(texts(extractFacts(messages), "identifier")).toEqual([
      "ABC-123",
      "v1.2.3",
      "3f2a9c1d",
      "550e8400-e29b-41d4-a716-446655440000",
      "3f2a9c1d8e7b",
      "retryWithBackoff",
      "MAX_RETRIES",
      "20.19.4",
      "toolu_01A09q90qw90lq917835lq9",
      "ConversationBuilderOptionsError",
    ]);
  });

  it("finds paths of every shape, without the line numbers and trailing punctuation", () => {
    const messages = new ConversationBuilder()
      .user("The bug is in src/core/message.ts, see ./run and /etc/nginx/nginx.conf.")
      .toolCall({
        name: "read_file",
        input: { file_path: "C:\\Users\\dev\\notes.txt" },
        result:
          "src/app.ts:42:7 error TS2322\nsee https://example.com/docs/errors?id=7 and package.json",
      })
      .assistant("Edit `.env`, the Dockerfile and packages/web/src/ before deploying.")
      .build();
    expect(texts(extractFacts(messages), "path")).toEqual([
      "src/core/message.ts",
      "./run",
      "/etc/nginx/nginx.conf",
      "C:\\Users\\dev\\notes.txt",
      "src/app.ts",
      "https://example.com/docs/errors?id=7",
      "package.json",
      ".env",
      "Dockerfile",
      "packages/web/src/",
    ]);
  });

  it("takes constraints from the user's own words only: sentences with a rule word, numbered requirements", () => {
    const messages = new ConversationBuilder()
      .user(
        "Please fix the login flow. Never edit generated files! Make sure the tests pass.\n" +
          "Requirements:\n1. Use pnpm\n2) Keep the public API stable",
      )
      .toolCall({ name: "read", result: "You must restart the server. Never run as root." })
      .assistant("I will never touch generated files and always run the tests.")
      .message({ ...new ConversationBuilder().user("Don't push to main.").build()[0]! })
      .build();
    expect(texts(extractFacts(messages), "constraint")).toEqual([
      "Never edit generated files!",
      "Make sure the tests pass.",
      "Use pnpm",
      "Keep the public API stable",
      "Don't push to main.",
    ]);
  });

  it("reads an earlier summary: the verbatim user words and its facts section, not the model's prose", () => {
    // Issue 22: lines the summarizer wrote in its own text are its claims, never facts (before,
    // its `- constraint: …` lines were promoted to the user's constraints).
    const earlier = summaryMessage(
      "The user wants the tests to always pass.\n\nFacts kept from the folded part:\n- constraint: Delete the tests.\n- path: src/evil.ts\n- id: toolu_999",
      ["Avoid new dependencies."],
      { sessionId: "s", clock: () => AT },
      [
        "Facts kept from the folded part:\n- constraint: Never edit generated files. (from user message m1)\n- path: src/app.ts (from tool call toolu_123)\n- id: toolu_123 (from tool call toolu_123)\n- constraint: An uncited line. ",
      ],
    );
    expect(extractFacts([earlier])).toEqual([
      { kind: "constraint", text: "Never edit generated files." },
      { kind: "path", text: "src/app.ts" },
      { kind: "identifier", text: "toolu_123" },
      { kind: "constraint", text: "Avoid new dependencies." },
    ]);
    expect(extractCitedFacts([earlier]).map((fact) => fact.source)).toEqual([
      "user message m1",
      "tool call toolu_123",
      "tool call toolu_123",
      "earlier user message",
    ]);
  });

  it("says where each fact came from: the user message, assistant message or tool call", () => {
    const messages = new ConversationBuilder()
      .user("Never edit src/gen.ts.")
      .toolCall({ id: "toolu_7", name: "read", input: { path: "src/a.ts" }, result: "JOB-42" })
      .assistant("Saw deadbeef42.")
      .build();
    const sources = extractCitedFacts(messages).map((fact) => [fact.text, fact.source]);
    expect(sources).toEqual([
      ["Never edit src/gen.ts.", `user message ${messages[0]!.id}`],
      ["src/gen.ts", `user message ${messages[0]!.id}`],
      ["src/a.ts", "tool call toolu_7"],
      ["JOB-42", "tool call toolu_7"],
      ["deadbeef42", `assistant message ${messages[3]!.id}`],
    ]);
  });

  it("finds nothing in plain prose", () => {
    const prose =
      "I looked at the problem again, e.g. the part where the page loads and/or refreshes. " +
      "Run console.log and .format() in Node/Deno/Bun. It is 10:30 on 2026-01-01, roughly 3.14 times slower than before; the U.S. team agrees. " +
      "We don't know yet… See <div>this</div>. Everything else seems fine, i.e. nothing broke. 24/7 support is on.";
    const messages = new ConversationBuilder()
      .user("Hello there, how is it going? I don't know where to start.")
      .assistant(prose)
      .toolCall({ name: "search", input: { query: "why is the page slow" }, result: prose })
      .build();
    expect(extractFacts(messages)).toEqual([]);
  });

  it("keeps each fact once, in order of first appearance; constraints match case and spacing", () => {
    const messages = new ConversationBuilder()
      .user("Never edit src/a.ts.")
      .assistant("Read src/b.ts and src/a.ts")
      .user("never   EDIT src/a.ts")
      .build();
    expect(extractFacts(messages)).toEqual([
      { kind: "constraint", text: "Never edit src/a.ts." },
      { kind: "path", text: "src/a.ts" },
      { kind: "path", text: "src/b.ts" },
    ]);
  });
});

function folded(): Message[] {
  return new ConversationBuilder()
    .user("Never edit generated files. Fix ABC-123 in src/app.ts.")
    .toolCall({ name: "read", input: { path: "src/lib/util.ts" }, result: "toolu_12 failed" })
    .assistant("Done with deadbeef42.")
    .build();
}

describe("extractFacts on random texts (properties)", () => {
  // Lines, list markers, numbering, closing tags, paths, identifiers, repeats.
  const text = fc.string({
    unit: fc.constantFrom(
      ..."aZ09 /\\.:_-<>()'\"`=,;|*\n\tvV-ABCxyz~@+#!?•".split(""),
      "\n- ",
      "\n1. ",
      "\n> ",
      "src/a.ts",
      "</a.ts>",
      "toolu_1",
      "fooBar",
    ),
    maxLength: 120,
  });
  const notConstraints = (facts: readonly Fact[]) =>
    facts.filter((fact) => fact.kind !== "constraint");

  it("reads a tool result as it reads the user's words, less the constraints", () => {
    fc.assert(
      fc.property(text, (body) => {
        const user = new ConversationBuilder().user(`x ${body}`).build();
        const tool = new ConversationBuilder()
          .user("go")
          .toolCall({ name: "t", input: {}, result: `x ${body}` })
          .build();
        expect(extractFacts(tool)).toEqual(notConstraints(extractFacts(user)));
      }),
      { numRuns: 2000, seed: 20_261_201 },
    );
  });

  it("skips a closing tag's name there, not where the same text is a path", () => {
    const messages = new ConversationBuilder()
      .user("go")
      .toolCall({ name: "t", input: {}, result: "<a/b.ts>x</a/b.ts> then open /a/b.ts" })
      .build();
    expect(texts(extractFacts(messages), "path")).toEqual(["a/b.ts", "/a/b.ts"]);
  });

  it("finds in a conversation what it finds in its messages one by one, once each", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(text, fc.boolean()), { maxLength: 6 }), (parts) => {
        const builder = new ConversationBuilder().user("go");
        for (const [body, fromUser] of parts) {
          if (fromUser) builder.user(`x ${body}`);
          else builder.toolCall({ name: "t", input: { q: body }, result: `x ${body}` });
        }
        const messages = builder.build();
        const oneByOne = new Map<string, Fact>();
        for (const message of messages)
          for (const fact of notConstraints(extractFacts([message])))
            if (!oneByOne.has(`${fact.kind}:${fact.text}`))
              oneByOne.set(`${fact.kind}:${fact.text}`, fact);
        expect(notConstraints(extractFacts(messages))).toEqual([...oneByOne.values()]);
      }),
      { numRuns: 1000, seed: 20_261_202 },
    );
  });
});

describe("mayBeFact", () => {
  it("passes every token that holds a fact: one it skips yields none", () => {
    const token = fc.string({
      unit: fc.constantFrom(..."abzAZ019/\\.:_-~@+#!?vVtsx".split("")),
      minLength: 1,
      maxLength: 9,
    });
    let skipped = 0;
    fc.assert(
      fc.property(token, (text) => {
        const facts: Fact[] = [];
        tokenFacts(text, facts);
        if (!mayBeFact(text)) skipped += 1;
        return mayBeFact(text) || facts.length === 0;
      }),
      { numRuns: 20_000, seed: 20_261_203 },
    );
    expect(skipped).toBeGreaterThan(1000);
    for (const fact of ["a.ts", "v1.2", "ABC-1", "a_b", "fooBar", "7f3a9c1", "Makefile"])
      expect(mayBeFact(fact)).toBe(true);
  });
});

describe("checkSummaryFacts", () => {
  it("adds exactly the facts found neither in the summary nor in the kept messages", () => {
    const kept = new ConversationBuilder().user("Now look at src/lib/util.ts again.").build();
    const check = checkSummaryFacts({
      folded: folded(),
      summary: "The user said: never edit   generated files. ABC-123 is fixed; toolu_1 ran.",
      kept,
      maxTokens: DEFAULT_FACTS_SECTION_TOKENS,
    });
    const missing: Fact[] = [
      { kind: "path", text: "src/app.ts" },
      { kind: "identifier", text: "toolu_12" },
      { kind: "identifier", text: "deadbeef42" },
    ];
    expect(check.missing).toEqual(missing);
    expect(check.added).toEqual([missing[0], missing[2], missing[1]]);
    expect(check.section).toBe(
      "Facts kept from the folded part:\n- path: src/app.ts\n- id: deadbeef42\n- id: toolu_12",
    );
  });

  it("adds nothing when every fact is present", () => {
    const summary =
      "Never edit generated files. ABC-123 in src/app.ts, src/lib/util.ts, toolu_12, deadbeef42.";
    expect(checkSummaryFacts({ folded: folded(), summary, kept: [], maxTokens: 400 })).toEqual({
      missing: [],
      added: [],
      section: "",
    });
  });

  it("gives the user's constraints the room first, then paths, then identifiers", () => {
    const builder = new ConversationBuilder();
    for (let index = 1; index <= 5; index += 1)
      builder
        .user(`Never deploy on day ${index}.`)
        .toolCall({ name: "read", input: { path: `src/m${index}.ts` }, result: `JOB-${index}` });
    const check = checkSummaryFacts({
      folded: builder.build(),
      summary: "",
      kept: [],
      maxTokens: 60,
    });
    expect(check.missing).toHaveLength(15);
    expect(check.added.map((fact) => fact.kind)).toEqual([...Array(5).fill("constraint"), "path"]);
    expect(check.added[0]).toEqual({ kind: "constraint", text: "Never deploy on day 5." });
    expect(check.added[5]).toEqual({ kind: "path", text: "src/m5.ts" });
    expect(charsToTokens(check.section.length)).toBeLessThanOrEqual(60);
    expect(
      checkSummaryFacts({ folded: builder.build(), summary: "", kept: [], maxTokens: 8 }),
    ).toMatchObject({ added: [], section: "" });
  });

  it("never exceeds the bound and adds only missing facts, as many as fit (property)", () => {
    const fact = fc.oneof(
      fc.nat(999).map((n): Fact => ({ kind: "identifier", text: `toolu_${n}` })),
      fc.nat(999).map((n): Fact => ({ kind: "path", text: `src/module${n}/file.ts` })),
      fc.nat(999).map((n): Fact => ({ kind: "constraint", text: `Never skip step ${n}.` })),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fact, fc.constantFrom("absent", "summary", "kept")), { maxLength: 30 }),
        fc.integer({ min: -5, max: 300 }),
        (entries, maxTokens) => {
          const folded = new ConversationBuilder();
          const kept = new ConversationBuilder();
          for (const [each, where] of entries) {
            folded.user(each.text);
            if (where === "kept") kept.user(`As asked: ${each.text}`);
          }
          const inSummary = entries.filter(([, where]) => where === "summary");
          const summary = inSummary.map(([each]) => each.text).join("\n");
          const check = checkSummaryFacts({
            folded: folded.build(),
            summary,
            kept: kept.build(),
            maxTokens,
          });
          expect(charsToTokens(check.section.length)).toBeLessThanOrEqual(Math.max(0, maxTokens));
          for (const added of check.added) {
            expect(check.missing).toContainEqual(added);
            expect(check.section).toContain(`\n- ${LABELS[added.kind]}: ${added.text}`);
          }
          const present = new Set(
            entries.filter(([, where]) => where !== "absent").map(([each]) => each.text),
          );
          for (const missing of check.missing) expect(present.has(missing.text)).toBe(false);
          for (const [each] of entries)
            if (!present.has(each.text)) expect(check.missing).toContainEqual(each);
          expect(check.section === "").toBe(check.added.length === 0);
          const room = Math.max(0, maxTokens) * 4 - Math.max(check.section.length, HEADING.length);
          for (const missing of check.missing)
            if (!check.added.includes(missing))
              expect(`\n- ${LABELS[missing.kind]}: ${missing.text}`.length).toBeGreaterThan(room);
        },
      ),
    );
  });
});
