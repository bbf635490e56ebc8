import { execFileSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type Compiled, ROOT } from "./consumer-project.js";
import { sharedConsumerProject } from "./shared-project.js";

// The package packed the way it is published and installed into an empty project (by the
// package project's global setup), used as users do: import (ESM) and require (CJS, without
// Node's require(esm) support), and compiled against under each moduleResolution users have.
const project = sharedConsumerProject();
const workdir = project.dir;

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

const USE_IT = `
  const session = new lib.AgentSession({ contextLimit: 1000 });
  session.addUserText("hello: " + "an old request with details ".repeat(20));
  session.addAssistant([{ type: "text", text: "an old answer ".repeat(40) }]);
  const client = new testing.MockLlmClient().reply("a summary");
  const compactor = new lib.LLMCompactor(client, { keepRecentTurns: 1 });
  const messages = [...session.messages];
  session.addUserText("again");
  let sameErrorClass = false;
  try {
    anthropic.toAnthropicMessages([{ role: "user" }]);
  } catch (error) {
    sameErrorClass = error instanceof lib.ValidationError;
  }
  // 6,000 messages the library has not seen: checked by zod's compiled schema.
  const builder = new testing.ConversationBuilder();
  for (let turn = 0; turn < 1500; turn += 1)
    builder.user("q" + turn).toolCall({ name: "read", result: "x".repeat(200) }).assistant("a");
  const big = builder.build().map((message) => ({ ...message }));
  const redact = new lib.ThresholdCompactor({ toolCompaction: "redact" });
  const bigRedacted = redact.compact(big, new Map()).result.toolResultsRedacted;
  let bigError = "";
  try {
    redact.compact(big.map((message, index) => (index === 4321 ? { ...message, id: "" } : message)), new Map());
  } catch (error) {
    bigError = error.message;
  }
  compactor.compactAsync([...session.messages], new Map()).then((out) => {
    console.log(JSON.stringify({
      summary: out.conversation[0].content[0].text,
      threshold: new lib.ThresholdCompactor().config.threshold,
      isError: lib.CompactionError.isInstance(new lib.CompactionError("timeout", "x")),
      idVersion: messages[0].id[14],
      anthropic: typeof anthropic.AnthropicLlmClient,
      sameErrorClass,
      bigRedacted,
      bigError,
    }));
  });
`;

const expected = {
  summary: "[Previous conversation summary]: a summary",
  threshold: 0.75,
  isError: true,
  idVersion: "7",
  anthropic: "function",
  sameErrorClass: true,
  bigRedacted: 1497,
  bigError: "Invalid conversation: [4321].id: must be a non-empty string",
};

describe("the packed package", () => {
  it("works from import (ESM)", () => {
    const script = `
      import * as lib from "agent-compaction";
      import * as testing from "agent-compaction/testing";
      import * as anthropic from "agent-compaction/anthropic";
      ${USE_IT}`;
    const output = run("node", ["--input-type=module", "-e", script], workdir);
    expect(JSON.parse(output)).toEqual(expected);
  });

  it("works from require (CJS) on Node 20, even without require(esm)", () => {
    const script = `
      const lib = require("agent-compaction");
      const testing = require("agent-compaction/testing");
      const anthropic = require("agent-compaction/anthropic");
      ${USE_IT}`;
    const output = run("node", ["--no-experimental-require-module", "-e", script], workdir);
    expect(JSON.parse(output)).toEqual(expected);
  });

  it("works where code cannot be generated from strings (a CSP): zod's parser checks alone", () => {
    const script = `
      import * as lib from "agent-compaction";
      import * as testing from "agent-compaction/testing";
      import * as anthropic from "agent-compaction/anthropic";
      ${USE_IT}`;
    const flags = ["--disallow-code-generation-from-strings", "--input-type=module", "-e", script];
    expect(JSON.parse(run("node", flags, workdir))).toEqual(expected);
  });

  // The stores sit in entries of their own, beside the root (which imports no Node built-in),
  // and share its classes: an error from /store is the root's ValidationError.
  const USE_STORES = `
    (async () => {
      const session = await store.openSession(new store.MemoryStore(), "s-1", { contextLimit: 1000 });
      await session.addUserText("hello");
      const error = await store.openSession(new store.MemoryStore(), "", { contextLimit: 1000 }).catch((e) => e);
      console.log(JSON.stringify({
        messages: session.messages.length,
        sharedError: error instanceof lib.ValidationError,
        fileStore: typeof fileStore.FileStore,
        inRoot: ["FileStore", "MemoryStore", "openSession", "StoredSession", "isCompactionBlock"].filter((name) => name in lib),
        blockInAnthropic: anthropic.isCompactionBlock({ type: "opaque", block: { type: "compaction" } }),
      }));
    })();
  `;
  const storesExpected = {
    messages: 1,
    sharedError: true,
    fileStore: "function",
    inRoot: [],
    blockInAnthropic: true,
  };

  it("has the stores in /store and /file-store, from import and require", () => {
    const esm = `
      import * as lib from "agent-compaction";
      import * as store from "agent-compaction/store";
      import * as fileStore from "agent-compaction/file-store";
      import * as anthropic from "agent-compaction/anthropic";
      ${USE_STORES}`;
    expect(JSON.parse(run("node", ["--input-type=module", "-e", esm], workdir))).toEqual(
      storesExpected,
    );
    const cjs = `
      const lib = require("agent-compaction");
      const store = require("agent-compaction/store");
      const fileStore = require("agent-compaction/file-store");
      const anthropic = require("agent-compaction/anthropic");
      ${USE_STORES}`;
    const flags = ["--no-experimental-require-module", "-e", cjs];
    expect(JSON.parse(run("node", flags, workdir))).toEqual(storesExpected);
  });

  it("ships only the build, the README, the docs pages it links and the licence", () => {
    // In the copy the package was built from: the repository itself may have no dist/.
    const files = run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], project.buildDir);
    const [{ files: packed }] = JSON.parse(files) as [{ files: { path: string }[] }];
    const paths = packed.map((file) => file.path);
    expect(paths).toContain("dist/index.cjs");
    expect(paths).toContain("dist/types/index.d.cts");
    // Declarations come one per source file from tsc, as .d.ts (import) and .d.cts (require).
    const declarations = paths.filter((path) => /\.d\.c?ts$/.test(path));
    expect(declarations.filter((path) => !path.startsWith("dist/types/"))).toEqual([]);
    const esm = declarations.filter((path) => path.endsWith(".d.ts")).sort();
    const cjs = declarations.filter((path) => path.endsWith(".d.cts")).sort();
    expect(cjs).toEqual(esm.map((path) => path.replace(/\.d\.ts$/, ".d.cts")));
    expect(paths).toContain("LICENSE");
    // The README's links into docs/ work in node_modules too: every page ships, nothing else.
    const docs = readdirSync(join(ROOT, "docs")).map((name) => `docs/${name}`);
    expect(docs).toContain("docs/api.md");
    expect(paths.filter((path) => path.startsWith("docs/")).sort()).toEqual(docs.sort());
    expect(paths.filter((path) => path.startsWith("src/") || path.startsWith("test/"))).toEqual([]);
  });
});

// What tsup's bundled declarations made a user's type error read: a chunk file and its minified
// export alias, `Type 'import(".../dist/llm-client-DpTQAiWV").M' is not assignable to …`.
// (Under node16 ESM the compiler adds `, { with: { "resolution-mode": "import" } }` in the parens.)
const CHUNK_FILE = /import\("[^"]*-[A-Za-z0-9_]{8}"/;
const SHORT_ALIAS = /import\("[^"]*"[^)]*\)\.[A-Za-z_$][\w$]?(?![\w$])/;

const MODES = [
  { name: "bundler", ext: ".ts", flags: ["--module", "esnext", "--moduleResolution", "bundler"] },
  {
    name: "node16 (ESM)",
    ext: ".mts",
    flags: ["--module", "node16", "--moduleResolution", "node16"],
  },
  {
    name: "node16 (CJS)",
    ext: ".cts",
    flags: ["--module", "node16", "--moduleResolution", "node16"],
  },
  { name: "node10", ext: ".ts", flags: ["--module", "commonjs", "--moduleResolution", "node10"] },
];

// Names of the fixed public contract, from all three of its entries, and the stores' entries.
const GOOD = `
import {
  AgentSession,
  type AgentSessionOptions,
  type AssistantMessage,
  CompactionError,
  LLMCompactor,
  type Message,
  ThresholdCompactor,
  ValidationError,
} from "agent-compaction";
import {
  AnthropicLlmClient,
  fromAnthropicMessages,
  toAnthropicMessages,
} from "agent-compaction/anthropic";
import { FileStore } from "agent-compaction/file-store";
import { MemoryStore, openSession, type SessionStore, type StoredSession } from "agent-compaction/store";
import { ConversationBuilder, MockLlmClient } from "agent-compaction/testing";

const options: AgentSessionOptions = { contextLimit: 1000 };
const stores: SessionStore[] = [new MemoryStore(), new FileStore({ directory: "sessions" })];
const stored: Promise<StoredSession> = openSession(stores[0]!, "s-1", { contextLimit: 1000 });
const session = new AgentSession(options);
session.addUserText("hello");
const messages: readonly Message[] = session.messages;
const answers: AssistantMessage[] = messages.filter(
  (message): message is AssistantMessage => message.role === "assistant",
);
const built: Message[] = new ConversationBuilder().user("hi").assistant("hello").build();
const roundTrip: Message[] = fromAnthropicMessages(toAnthropicMessages(built));
const compactor = new LLMCompactor(new MockLlmClient().reply("a summary"));
const threshold: number = new ThresholdCompactor().config.threshold;
const clientClass: typeof AnthropicLlmClient = AnthropicLlmClient;
function explain(error: unknown): string {
  if (error instanceof ValidationError) return error.message;
  if (CompactionError.isInstance(error)) return error.code;
  return "other";
}
export { answers, clientClass, compactor, explain, roundTrip, stored, threshold };
`;

// Deliberate mistakes. The consumer's own `Message` makes the compiler qualify the library's.
const BAD = `
import { AgentSession, type AssistantMessage } from "agent-compaction";
import { ConversationBuilder } from "agent-compaction/testing";

interface Message {
  role: "user" | "assistant";
  text: string;
}
const reply: AssistantMessage = { role: "assistant" };
const session = new AgentSession({ contextLimit: 1000, contextLimt: 5 });
const mine: Message = session.messages[0]!;
const built: Message[] = new ConversationBuilder().user("hi").build();
export { built, mine, reply };
`;

/** Runs the repository's tsc on consumer files inside the temp project (libraries checked too). */
function typecheck(files: string[], flags: string[]): Promise<Compiled> {
  // esModuleInterop: zod's own .d.cts files need it under module commonjs (node10).
  return project.typecheck([
    "--noEmit",
    ...["--pretty", "false", "--strict", "--target", "es2022"],
    ...["--esModuleInterop", "--types", "node", ...flags, ...files],
  ]);
}

/** The error lines of tsc's output, by file. */
function errorsIn(output: string, file: string): string[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith(`${file}(`) && / error TS\d+:/.test(line));
}

describe("the packed types", () => {
  const compiled = new Map<string, Compiled>();
  const files = (name: string, ext: string) => {
    const slug = name.replace(/\W+/g, "-").replace(/-$/, "");
    return { good: `good-${slug}${ext}`, bad: `bad-${slug}${ext}` };
  };

  // One tsc per mode (good and bad consumer files together), all modes at once: tsc is slow.
  beforeAll(async () => {
    await Promise.all(
      MODES.map(async ({ name, ext, flags }) => {
        const { good, bad } = files(name, ext);
        writeFileSync(join(workdir, good), GOOD);
        writeFileSync(join(workdir, bad), BAD);
        compiled.set(name, await typecheck([good, bad], flags));
      }),
    );
  }, 300_000);

  it("the chunk-alias patterns catch what tsup's bundled declarations printed", () => {
    const before = `Type 'import("/tmp/p/node_modules/agent-compaction/dist/llm-client-DpTQAiWV").M' is not assignable to type 'Message'.`;
    expect(before).toMatch(CHUNK_FILE);
    expect(before).toMatch(SHORT_ALIAS);
  });

  describe.each(MODES)("moduleResolution $name", ({ name, ext }) => {
    it("compiles a consumer of the entries, and the package's declarations, without error", () => {
      const { output } = compiled.get(name)!;
      const { good, bad } = files(name, ext);
      expect(errorsIn(output, good)).toEqual([]);
      // Every error is the bad file's: none from resolving or checking the package.
      const others = output.split("\n").filter((line) => / error TS\d+:/.test(line));
      expect(others.filter((line) => !line.startsWith(`${bad}(`))).toEqual([]);
    });

    it("names the library's own types in a consumer's type errors", () => {
      const { status, output } = compiled.get(name)!;
      const { bad } = files(name, ext);
      expect(status).not.toBe(0);
      expect(errorsIn(output, bad)).toHaveLength(4);
      expect(output).toContain("type 'AssistantMessage'");
      expect(output).toContain("type 'AgentSessionOptions'");
      expect(output).toMatch(/'import\("[^"]*\/agent-compaction\/[^"]*"[^)]*\)\.Message'/);
      expect(output).not.toMatch(CHUNK_FILE);
      expect(output).not.toMatch(SHORT_ALIAS);
    });
  });
});
