import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Packs the package the way it is published, installs the tarball into an empty project and
// uses it as users do: import (ESM) and require (CJS, without Node's require(esm) support).
const root = resolve(import.meta.dirname, "../..");
let workdir: string;

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

beforeAll(() => {
  workdir = mkdtempSync(join(tmpdir(), "agent-compaction-pack-"));
  run("npm", ["pack", "--pack-destination", workdir, "--silent"], root);
  const tarball = readdirSync(workdir).find((name) => name.endsWith(".tgz"));
  if (tarball === undefined) throw new Error("npm pack wrote no tarball");
  writeFileSync(join(workdir, "package.json"), JSON.stringify({ name: "consumer", private: true }));
  // The SDK is an optional peer: users of agent-compaction/anthropic install it themselves.
  const { devDependencies } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
  };
  const sdk = `@anthropic-ai/sdk@${devDependencies["@anthropic-ai/sdk"]}`;
  run(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", `./${tarball}`, sdk],
    workdir,
  );
}, 180_000);

afterAll(() => {
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

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
  compactor.compactAsync([...session.messages], new Map()).then((out) => {
    console.log(JSON.stringify({
      summary: out.conversation[0].content[0].text,
      threshold: new lib.ThresholdCompactor().config.threshold,
      isError: lib.CompactionError.isInstance(new lib.CompactionError("timeout", "x")),
      idVersion: messages[0].id[14],
      anthropic: typeof anthropic.AnthropicLlmClient,
      sameErrorClass,
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

  it("ships only the build, the README and the licence", () => {
    const files = run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], root);
    const [{ files: packed }] = JSON.parse(files) as [{ files: { path: string }[] }];
    const paths = packed.map((file) => file.path);
    expect(paths).toContain("dist/index.cjs");
    expect(paths).toContain("dist/index.d.cts");
    expect(paths).toContain("LICENSE");
    expect(paths.filter((path) => path.startsWith("src/") || path.startsWith("test/"))).toEqual([]);
  });
});
