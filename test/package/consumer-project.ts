import { execFile, execFileSync } from "node:child_process";
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, "../..");

/** What `npm pack` needs to build the package (its `prepack` runs `npm run build`). */
const BUILD_INPUTS = [
  "package.json",
  "README.md",
  "docs",
  "LICENSE",
  "tsup.config.ts",
  "tsconfig.json",
  "tsconfig.build.json",
  "scripts",
  "src",
];

/** What tsc said: its exit status and its output. */
export interface Compiled {
  status: number | null;
  output: string;
}

/** An empty project with the packed package installed, as a user's project has it. */
export interface ConsumerProject {
  /** The project's directory. */
  readonly dir: string;
  /** The copy of the sources the package was built and packed from, its `dist/` included. */
  readonly buildDir: string;
  /** Runs the repository's tsc in the project with these arguments (files and flags). */
  typecheck(args: readonly string[]): Promise<Compiled>;
  /** Runs `node` in the project and returns its standard output. */
  node(args: readonly string[]): string;
  /** Deletes the project and the build it came from. */
  remove(): void;
}

function run(command: string, args: readonly string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/**
 * Builds and packs the package the way it is published (`npm pack` runs the `prepack` build, so
 * the repository needs no `dist/` of its own), from a copy of its sources (so a test
 * never reads the repository's `dist/` while another test's `npm pack` rebuilds it), and
 * installs the tarball into an empty project with the peers a user adds: `@anthropic-ai/sdk`
 * (the optional peer of `agent-compaction/anthropic`) and `@types/node`, at the versions the
 * repository pins. One build, one pack, one install.
 */
export function createConsumerProject(name = "consumer"): ConsumerProject {
  const stage = mkdtempSync(join(tmpdir(), "agent-compaction-stage-"));
  const dir = mkdtempSync(join(tmpdir(), `agent-compaction-${name}-`));
  const remove = () => {
    rmSync(stage, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const input of BUILD_INPUTS) {
      cpSync(join(ROOT, input), join(stage, input), {
        recursive: true,
        filter: (source) => !source.endsWith(".test.ts"),
      });
    }
    symlinkSync(join(ROOT, "node_modules"), join(stage, "node_modules"), "dir");
    run("npm", ["pack", "--pack-destination", dir, "--silent"], stage);
    const tarball = readdirSync(dir).find((file) => file.endsWith(".tgz"));
    if (tarball === undefined) throw new Error("npm pack wrote no tarball");

    writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true }));
    const { devDependencies } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    const pinned = (dependency: string) => `${dependency}@${devDependencies[dependency]}`;
    run(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        `./${tarball}`,
        pinned("@anthropic-ai/sdk"),
        pinned("ai"),
        pinned("openai"),
        pinned("@google/genai"),
        // The AI SDK's declarations import `json-schema` types they do not depend on.
        "@types/json-schema@7.0.15",
        pinned("@opentelemetry/api"),
        pinned("@types/node"),
        pinned("langchain"),
        pinned("@langchain/core"),
        pinned("redis"),
        pinned("pg"),
        pinned("@types/pg"),
      ],
      dir,
    );
  } catch (error) {
    remove();
    throw error;
  }

  return consumerProjectAt(dir, stage);
}

/** The {@link ConsumerProject} that {@link createConsumerProject} left in `dir`, built in `buildDir`. */
export function consumerProjectAt(dir: string, buildDir: string): ConsumerProject {
  return {
    dir,
    buildDir,
    typecheck(args) {
      const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
      return new Promise((done) => {
        execFile(
          process.execPath,
          [tsc, ...args],
          { cwd: dir, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
          (error, stdout, stderr) => {
            const status = error === null ? 0 : typeof error.code === "number" ? error.code : null;
            done({ status, output: `${stdout}${stderr}` });
          },
        );
      });
    },
    node(args) {
      return run(process.execPath, args, dir);
    },
    remove() {
      rmSync(buildDir, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
