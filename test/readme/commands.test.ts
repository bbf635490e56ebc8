import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import config from "../../vitest.config.js";
import { ROOT } from "../package/consumer-project.js";

// The two commands at the top of the README are what a new user runs in a clone; CI runs the
// same test command, and the scripts they name exist.
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const CI = readFileSync(join(ROOT, ".ci/run"), "utf8");
const { scripts } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
};

/** The commands of the README's first ```sh block, comments dropped. */
function topCommands(): string[] {
  const block = /```sh\n([\s\S]*?)\n```/.exec(README)?.[1] ?? "";
  return block.split("\n").map((line) => line.replace(/#.*/, "").trim());
}

/** The commands CI runs, comments dropped. */
const ciCommands = CI.split("\n").map((line) => line.replace(/#.*/, "").trim());

describe("the README's commands", () => {
  it("name the demo, then the tests", () => {
    const commands = topCommands();
    const demo = commands.indexOf("npm ci && npm run demo");
    expect(demo).toBeGreaterThanOrEqual(0);
    expect(commands.indexOf("npm test")).toBeGreaterThan(demo);
  });

  it("CI runs the README's test command", () => {
    expect(ciCommands).toContain("npm test");
  });

  it("the test scripts run the projects: all of them, or one alone", () => {
    expect(scripts["test"]).toBe("vitest run");
    expect(scripts["test:unit"]).toBe("vitest run --project unit");
    expect(scripts["test:slow"]).toBe("vitest run --project slow");
    expect(scripts["demo"]).toBeDefined();
  });
});

describe("the test projects", () => {
  const projects = (config.test?.projects ?? []).map((project) => {
    if (typeof project !== "object" || !("test" in project))
      throw new Error("inline projects only");
    return project.test ?? {};
  });

  const named = (name: string) => projects.find((project) => project.name === name) ?? {};

  it("are unit, slow, integration and package; only integration starts the servers", () => {
    expect(projects.map((project) => project.name)).toEqual([
      "unit",
      "slow",
      "integration",
      "package",
    ]);
    const setups = projects.map((project) => [project.globalSetup ?? []].flat());
    expect(setups.flat().filter((file) => file.includes("servers"))).toEqual([
      "test/setup/servers.ts",
    ]);
    expect([named("integration").globalSetup ?? []].flat()).toEqual(["test/setup/servers.ts"]);
    expect(config.test?.globalSetup).toBeUndefined();
  });

  it("keep the property, fuzz and bench tests out of the unit project, in the slow one", () => {
    const slow = [named("slow").include ?? []].flat();
    expect(slow).toEqual(expect.arrayContaining(["test/properties/**/*.test.ts"]));
    expect(slow).toEqual(expect.arrayContaining(["test/fuzz/**/*.test.ts"]));
    expect(slow).toEqual(expect.arrayContaining(["test/bench/**/*.test.ts"]));
    expect([named("unit").exclude ?? []].flat()).toEqual(expect.arrayContaining(slow));
  });
});
