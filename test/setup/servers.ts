import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, openSync, readdirSync, rmSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";

// Real Redis and PostgreSQL servers for the store tests: started on free loopback ports in
// temporary directories, stopped afterwards. System binaries where present; on a fresh Debian
// machine (as root) missing ones are installed with apt. PostgreSQL refuses to run as root, so
// as root it runs as the `postgres` user. The global setup starts one of each for all tests
// and provides their URLs; a test that restarts a server starts its own with these helpers.

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
    postgresUrl: string;
  }
}

/** A server a test started: its URL, and how to stop it, crash it or start it again. */
export interface TestServer {
  readonly url: string;
  /** Stops the server cleanly. */
  stop(): Promise<void>;
  /** Kills the server as a crash would (Redis: SIGKILL; PostgreSQL: immediate shutdown). */
  crash(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and deletes its data. */
  remove(): Promise<void>;
}

const isRoot = () => process.getuid?.() === 0;

function aptInstall(packages: string[]): void {
  if (!isRoot()) {
    throw new Error(
      `the store tests need ${packages.join(", ")}: install them (apt-get install -y ${packages.join(" ")})`,
    );
  }
  const options = {
    stdio: "ignore" as const,
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  };
  execFileSync("apt-get", ["update", "-qq"], options);
  execFileSync("apt-get", ["install", "-y", "-qq", ...packages], options);
}

function which(command: string): string | undefined {
  try {
    return (
      execFileSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/** The redis-server binary, installed with apt when missing. */
export function redisServerBinary(): string {
  let binary = which("redis-server");
  if (binary === undefined) {
    aptInstall(["redis-server"]);
    binary = which("redis-server");
  }
  if (binary === undefined) throw new Error("redis-server is not installed");
  return binary;
}

/** The directory of PostgreSQL's server binaries (the newest version), installed with apt when missing. */
export function postgresBinaries(): string {
  const find = () => {
    const root = "/usr/lib/postgresql";
    if (!existsSync(root)) return undefined;
    const versions = readdirSync(root)
      .filter((version) => existsSync(join(root, version, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    return versions[0] === undefined ? undefined : join(root, versions[0], "bin");
  };
  let dir = find();
  if (dir === undefined) {
    aptInstall(["postgresql"]);
    dir = find();
  }
  if (dir === undefined) throw new Error("PostgreSQL's server binaries are not installed");
  return dir;
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `ready` resolves to true, up to `timeoutMs`. */
async function waitFor(what: string, ready: () => Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await ready().catch(() => false)) return;
    await pause(50);
  }
  throw new Error(`${what} did not start within ${timeoutMs} ms`);
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

function redisPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("error", () => resolve(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => {
      socket.destroy();
      resolve(data.toString().startsWith("+PONG"));
    });
  });
}

/** How {@link serverProcess} runs one server. */
interface ServerProcess {
  /** The server's name in errors. */
  name: string;
  url: string;
  /** Its data directory, deleted by `remove`. */
  dir: string;
  /** Spawns the server process. */
  launch: () => ChildProcess;
  /** Whether it answers yet. */
  ready: () => Promise<boolean>;
  /** The signals of a clean stop and of a crash. */
  signals: { stop: NodeJS.Signals; crash: NodeJS.Signals };
}

/** Starts a server process and waits for it; the {@link TestServer} that stops, crashes and restarts it. */
async function serverProcess(server: ServerProcess): Promise<TestServer> {
  let child: ChildProcess | undefined;
  const start = async () => {
    child = server.launch();
    await waitFor(server.name, server.ready);
  };
  const halt = async (signal: NodeJS.Signals) => {
    if (child === undefined) return;
    const running = child;
    child = undefined;
    running.kill(signal);
    await exited(running);
  };
  await start();
  return {
    url: server.url,
    stop: () => halt(server.signals.stop),
    crash: () => halt(server.signals.crash),
    start,
    remove: async () => {
      await halt(server.signals.stop);
      rmSync(server.dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts redis-server on a free loopback port with an append-only file, flushed on every write
 * (`appendfsync always`: every write that was answered survives a crash of the server) unless
 * `fsync: "everysec"` (faster; a crash may lose the last second).
 */
export async function startRedis(
  options: { fsync?: "always" | "everysec" } = {},
): Promise<TestServer> {
  const binary = redisServerBinary();
  const dir = mkdtempSync(join(tmpdir(), "agent-compaction-redis-"));
  const port = await freePort();
  return serverProcess({
    name: "redis-server",
    url: `redis://127.0.0.1:${port}`,
    dir,
    launch: () => {
      const log = openSync(join(dir, "redis.log"), "a");
      return spawn(
        binary,
        ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", ""].concat([
          "--appendonly",
          "yes",
          "--appendfsync",
          options.fsync ?? "always",
          "--protected-mode",
          "no",
        ]),
        { stdio: ["ignore", log, log] },
      );
    },
    ready: () => redisPing(port),
    signals: { stop: "SIGTERM", crash: "SIGKILL" },
  });
}

/**
 * Starts PostgreSQL on a free loopback port, in a new cluster (as the `postgres` user when
 * root), with `fsync` off unless asked (a crash of the server still loses no committed write:
 * the operating system keeps what was written; a crash of the machine would).
 */
export async function startPostgres(options: { fsync?: boolean } = {}): Promise<TestServer> {
  const bin = postgresBinaries();
  const dir = mkdtempSync(join(tmpdir(), "agent-compaction-postgres-"));
  const data = join(dir, "data");
  const port = await freePort();
  const user = isRoot()
    ? {
        uid: Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" })),
        gid: Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" })),
      }
    : {};
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid!);
  execFileSync(
    join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"],
    { stdio: "ignore", cwd: dir, ...user },
  );
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return serverProcess({
    name: "postgres",
    url,
    dir,
    launch: () => {
      const log = openSync(join(dir, "postgres.log"), "a");
      if (user.uid !== undefined) chownSync(join(dir, "postgres.log"), user.uid, user.gid!);
      return spawn(
        join(bin, "postgres"),
        ["-D", data, "-p", String(port), "-c", "listen_addresses=127.0.0.1"].concat([
          "-c",
          "unix_socket_directories=",
          "-c",
          `fsync=${options.fsync === true ? "on" : "off"}`,
          "-c",
          "max_connections=300",
        ]),
        { stdio: ["ignore", log, log], cwd: dir, ...user },
      );
    },
    ready: async () => {
      const client = new pg.Client({ connectionString: url });
      client.on("error", () => undefined);
      try {
        await client.connect();
        await client.query("SELECT 1");
        return true;
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    // SIGINT: fast shutdown; SIGQUIT: immediate shutdown, crash recovery at the next start.
    signals: { stop: "SIGINT", crash: "SIGQUIT" },
  });
}

/** The global setup: one Redis and one PostgreSQL for every test file, stopped at the end. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The shared Redis flushes its log every second (the restart tests start their own, flushing
  // every write); the shared PostgreSQL runs with fsync off. Neither is crashed.
  const started = await Promise.allSettled([startRedis({ fsync: "everysec" }), startPostgres()]);
  const servers = started.flatMap((outcome) =>
    outcome.status === "fulfilled" ? [outcome.value] : [],
  );
  const failed = started.find((outcome) => outcome.status === "rejected");
  if (failed !== undefined) {
    await Promise.all(servers.map((server) => server.remove()));
    throw failed.reason;
  }
  const [redis, postgres] = servers as [TestServer, TestServer];
  project.provide("redisUrl", redis.url);
  project.provide("postgresUrl", postgres.url);
  return async () => {
    await Promise.all([redis.remove(), postgres.remove()]);
  };
}
