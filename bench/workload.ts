import type { JsonObject } from "../src/index.js";
import { createRandom, deriveSeed, type Random } from "./random.js";

/** `short-turns`: a user message every 2–12 steps; `long-turn`: one request answered by every step. */
export type WorkloadShape = "short-turns" | "long-turn";

/** What a planted fact is; the probes look for its exact text. */
export type FactKind = "id" | "path" | "number" | "constraint";

/** Where a planted fact first appears. */
export type FactOrigin = "task" | "user" | "tool_input" | "tool_result";

/** A string the agent would need later: an id, a path, a number or a user constraint. */
export interface PlantedFact {
  text: string;
  kind: FactKind;
  origin: FactOrigin;
  /** The step whose request first carries it. */
  step: number;
}

/** One simulated tool call and what the tool returned. */
export interface SimulatedToolCall {
  id: string;
  name: string;
  input: JsonObject;
  output: string;
  /** The short summary the tool computed when it ran (used by `toolCompaction: "summarize"`). */
  compactSummary: string;
  isError: boolean;
}

/** One request of the agent loop and the model's reply to it. */
export interface SimulatedStep {
  /** A user message sent before this request (opens a new turn). */
  userText?: string;
  /** The assistant's text before its tool calls. */
  reasoning: string;
  /** Tool calls of the reply; empty on the final step (the answer). */
  calls: SimulatedToolCall[];
}

/** A generated agent run. */
export interface Trajectory {
  shape: WorkloadShape;
  seed: number;
  steps: SimulatedStep[];
  facts: PlantedFact[];
  /** Share of all content tokens that are tool outputs. */
  observationShare: number;
  /** The largest tool output, in estimated tokens. */
  largestOutputTokens: number;
}

/** How a trajectory is generated. */
export interface WorkloadOptions {
  steps: number;
  shape: WorkloadShape;
  seed: number;
  /** Median tool output in tokens. @default 1200 */
  outputMedianTokens?: number;
  /** 99th percentile of tool outputs in tokens. @default 30000 */
  outputP99Tokens?: number;
  /** Cap on one tool output in tokens (tools truncate). @default 40000 */
  outputMaxTokens?: number;
}

const CHARS_PER_TOKEN = 4;

// Filler has no digits, slashes, '=' or capitals, so the probes never match it by chance.
const WORDS = (
  "the a of to and in is it that for on with as this was be by are from or at an not but " +
  "value config handler request response buffer stream module service client server cache " +
  "token session context window parser render update record schema index query result error " +
  "retry timeout socket thread worker queue batch event signal option default feature build " +
  "deploy release commit branch merge review patch diff lint check format logger metric trace " +
  "span payload header cookie route import export function class method return async await " +
  "promise string number boolean object array map set list node tree graph edge vertex weight " +
  "user account billing invoice ledger payment order cart product price tax discount shipping"
).split(" ");
const MODULES = ["billing", "auth", "ledger", "search", "cart", "api", "jobs", "mailer", "ui"];
const NAMES = ["handler", "service", "client", "store", "router", "worker", "schema", "utils"];
const KEYS = ["port", "pool_size", "retry_ms", "max_batch", "timeout_ms", "version_minor"];
const ID_PREFIXES = ["TKT", "BUG", "INC", "REQ"];
const RULE_OBJECTS = ["the public api", "migrations", "vendored code", "the lockfile", "ci config"];

const POOL_CHARS = 320_000;

function fillerPool(random: Random): string {
  const parts: string[] = [];
  let length = 0;
  while (length < POOL_CHARS) {
    const sentence: string[] = [];
    const words = random.int(6, 18);
    for (let index = 0; index < words; index += 1) sentence.push(random.pick(WORDS));
    const text = `${sentence.join(" ")}${random.chance(0.15) ? ".\n" : ". "}`;
    parts.push(text);
    length += text.length;
  }
  return parts.join("");
}

/** Generates a deterministic trajectory: the same options give byte-identical content. */
export function generateTrajectory(options: WorkloadOptions): Trajectory {
  const seed = deriveSeed(options.seed, options.shape, options.steps);
  const random = createRandom(seed);
  const pool = fillerPool(createRandom(deriveSeed(options.seed, "pool")));
  const median = options.outputMedianTokens ?? 1200;
  const p99 = options.outputP99Tokens ?? 30_000;
  const maxTokens = options.outputMaxTokens ?? 40_000;
  const facts: PlantedFact[] = [];
  const used = new Set<string>();
  let observationTokens = 0;
  let otherTokens = 0;
  let largestOutputTokens = 0;

  const filler = (tokens: number): string => {
    const length = Math.max(1, Math.round(tokens * CHARS_PER_TOKEN));
    const start = random.int(0, pool.length - length - 1);
    return pool.slice(start, start + length);
  };
  const unique = (make: () => string): string => {
    for (;;) {
      const text = make();
      if (!used.has(text)) {
        used.add(text);
        return text;
      }
    }
  };
  const plant = (kind: FactKind, origin: FactOrigin, step: number): string => {
    const text = unique(() => {
      switch (kind) {
        case "id":
          return `${random.pick(ID_PREFIXES)}-${random.int(1000, 99_999)}`;
        case "path":
          return `src/${random.pick(MODULES)}/${random.pick(NAMES)}-${random.int(2, 999)}.ts`;
        case "number":
          return `${random.pick(KEYS)}=${random.int(2, 65_000)}`;
        case "constraint":
          return `${random.pick(["Never", "Always"])} ${random.pick(["check", "touch", "run", "review"])} ${random.pick(RULE_OBJECTS)} before step ${random.int(10, 9999)}.`;
      }
    });
    facts.push({ text, kind, origin, step });
    return text;
  };
  const insertAt = (text: string, fact: string): string => {
    const at = random.int(0, text.length);
    return `${text.slice(0, at)} ${fact} ${text.slice(at)}`;
  };
  const outputTokens = (): number =>
    Math.min(maxTokens, Math.max(20, Math.round(random.logNormal(median, p99))));

  const makeCall = (step: number, index: number): SimulatedToolCall => {
    const id = `toolu_${step}_${index}`;
    const roll = random.next();
    const notePath = `src/${random.pick(MODULES)}/${random.pick(NAMES)}.ts`;
    let call: Omit<SimulatedToolCall, "id">;
    if (roll < 0.2) {
      // Edits carry their patch in the input; the modified path is a fact.
      const path = plant("path", "tool_input", step + 1);
      const patch = filler(Math.min(4000, random.logNormal(150, 2000)));
      call = {
        name: "edit_file",
        input: { path, patch },
        output: `Applied 1 edit to ${path}.`,
        compactSummary: `edit_file ${path}: applied`,
        isError: false,
      };
    } else {
      const tokens = outputTokens();
      let output = filler(tokens);
      largestOutputTokens = Math.max(largestOutputTokens, tokens);
      if (random.chance(0.3)) {
        output = insertAt(
          output,
          plant(random.pick(["id", "path", "number"]), "tool_result", step + 1),
        );
      }
      const lines = output.split("\n").length;
      if (roll < 0.5) {
        call = {
          name: "read_file",
          input: { path: notePath },
          output,
          compactSummary: `read_file ${notePath}: ${lines} lines`,
          isError: false,
        };
      } else if (roll < 0.65) {
        const pattern = random.pick(WORDS);
        call = {
          name: "grep",
          input: { pattern, path: "src" },
          output,
          compactSummary: `grep "${pattern}": ${lines} matching lines`,
          isError: false,
        };
      } else if (roll < 0.77) {
        const failed = random.int(0, 3);
        call = {
          name: "run_tests",
          input: { filter: random.pick(MODULES) },
          output,
          compactSummary: `run_tests: ${random.int(20, 400)} passed, ${failed} failed`,
          isError: failed > 0,
        };
      } else if (roll < 0.92) {
        const command = `${random.pick(["ls", "cat", "git log", "npm run"])} ${random.pick(MODULES)}`;
        call = {
          name: "bash",
          input: { command },
          output,
          compactSummary: `bash \`${command}\`: ${lines} lines of output`,
          isError: random.chance(0.05),
        };
      } else {
        const url = `https://docs.example.com/${random.pick(MODULES)}`;
        call = {
          name: "browser",
          input: { url },
          output,
          compactSummary: `browser ${url}: ${lines} lines`,
          isError: false,
        };
      }
    }
    observationTokens += call.output.length / CHARS_PER_TOKEN;
    otherTokens += (call.name.length + JSON.stringify(call.input).length) / CHARS_PER_TOKEN;
    return { id, ...call };
  };

  const steps: SimulatedStep[] = [];
  let nextUserStep = 0;
  for (let step = 0; step < options.steps; step += 1) {
    let userText: string | undefined;
    if (step === 0) {
      userText = `Task ${plant("id", "task", 0)}: fix the failing ${random.pick(MODULES)} checks. ${plant("constraint", "task", 0)} ${plant("constraint", "task", 0)} ${filler(random.int(40, 120))}`;
      nextUserStep = random.int(2, 12);
    } else if (options.shape === "short-turns" && step === nextUserStep) {
      const parts = [`Next: ${filler(random.int(15, 80))}`];
      if (random.chance(0.35)) parts.push(plant("constraint", "user", step));
      if (random.chance(0.2)) parts.push(`See ${plant("id", "user", step)}.`);
      userText = parts.join(" ");
      nextUserStep = step + random.int(2, 12);
    }
    if (userText !== undefined) otherTokens += userText.length / CHARS_PER_TOKEN;
    const reasoning = filler(random.int(150, 600));
    otherTokens += reasoning.length / CHARS_PER_TOKEN;
    const isLast = step === options.steps - 1;
    const callCount = isLast ? 0 : random.chance(0.15) ? random.int(2, 3) : 1;
    const calls: SimulatedToolCall[] = [];
    for (let index = 0; index < callCount; index += 1) calls.push(makeCall(step, index));
    steps.push({ ...(userText === undefined ? {} : { userText }), reasoning, calls });
  }
  return {
    shape: options.shape,
    seed,
    steps,
    facts,
    observationShare: observationTokens / (observationTokens + otherTokens),
    largestOutputTokens,
  };
}
