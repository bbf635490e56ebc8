import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { MessagesApiServer } from "../support/messages-api-server.js";

// Two recipes of docs/recipes.md (the README's recipe index links them) run as pasted, in a
// process of their own: only the package's imports point at the sources, and the servers are
// the loopback Messages API and the test's Redis. Each must finish by itself (a client left
// open keeps the process alive) and exit 0.
const ROOT = join(import.meta.dirname, "../..");
const RECIPES_PAGE = "docs/recipes.md";
const RECIPES = readFileSync(join(ROOT, RECIPES_PAGE), "utf8");

/** The first ```ts block under the heading `## heading` of docs/recipes.md. */
function recipe(heading: string): string {
  const start = RECIPES.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`${RECIPES_PAGE} has no recipe "${heading}"`);
  const block = /```ts\n([\s\S]*?)\n```/.exec(RECIPES.slice(start))?.[1];
  if (block === undefined) throw new Error(`recipe "${heading}" has no ts block`);
  return block;
}

/** The package's imports as the sources' files. */
function fromSources(code: string): string {
  return code.replace(/from "agent-compaction(\/[a-z-]+)?"/g, (_, entry?: string) => {
    const folder = entry === undefined ? "" : `${entry.slice(1)}/`;
    return `from ${JSON.stringify(join(ROOT, "src", folder, "index.ts"))}`;
  });
}

// Inside the repository, so the packages it imports resolve from its node_modules.
mkdirSync(join(ROOT, "node_modules/.cache"), { recursive: true });
const directory = mkdtempSync(join(ROOT, "node_modules/.cache/readme-recipe-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/**
 * Runs `code` with tsx in a child process (this one keeps serving the loopback API meanwhile):
 * its exit status, or the signal that ended it at the deadline.
 */
function run(name: string, code: string, env: Record<string, string>) {
  const file = join(directory, `${name}.mts`);
  writeFileSync(file, code);
  const child = spawn(process.execPath, ["--import", "tsx", file], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const deadline = setTimeout(() => child.kill("SIGTERM"), 20_000);
  return new Promise<{ status: number | null; signal: string | null; stderr: string }>(
    (resolve) => {
      child.on("close", (status, signal) => {
        clearTimeout(deadline);
        resolve({ status, signal, stderr });
      });
    },
  );
}

describe("the recipes of docs/recipes.md run as pasted", () => {
  it("Let the API compact and clear: the request it sends is one the API accepts", async () => {
    const server = await MessagesApiServer.start();
    try {
      const code = fromSources(recipe("Let the API compact and clear (Anthropic)"));
      const result = await run("api-compaction", code, {
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: "sk-loopback",
      });
      expect(result.stderr).toBe("");
      expect(result).toMatchObject({ status: 0, signal: null });
      const sent = server
        .requestsTo("messages")
        .map((request) => (request.body as { messages?: unknown }).messages);
      expect(sent).toEqual([expect.arrayContaining([expect.anything()])]);
    } finally {
      await server.close();
    }
  }, 60_000);

  it("Many workers: the Redis recipe stores its writes and exits", async () => {
    const code = fromSources(recipe("Many workers: one conversation in Redis or PostgreSQL"));
    const local = code.replace("redis://localhost:6379", inject("redisUrl"));
    expect(local).not.toBe(code);
    const result = await run("redis", local, {});
    expect(result.stderr).toBe("");
    expect(result).toMatchObject({ status: 0, signal: null });
  }, 60_000);
});
