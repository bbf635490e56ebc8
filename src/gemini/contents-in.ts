import type { Content } from "@google/genai";
import { ValidationError, type ValidationIssue } from "../core/errors.js";
import { GEMINI_CONTENT_MARKS_KEY, GEMINI_KEY } from "../core/gemini-contents.js";
import type { ContentBlock, JsonObject, Message } from "../core/message.js";
import { type Clock, newId } from "../core/message-factory.js";
import { rememberBuilt } from "../core/message-memo.js";
import {
  checkConversionOptions,
  checkedGenerateId,
  checkMadeByOptions,
} from "../internal/conversion-options.js";
import type { ItemOrigins } from "../internal/item-origins.js";
import { normalizeJson } from "../internal/json-value.js";
import { isNonEmptyString } from "../internal/non-empty-string.js";
import { HAS_OWN, isPlainObject, spreadWith, without } from "../internal/plain-object.js";
import { TurnBuilder } from "../internal/turn-builder.js";
import { arrayLength, unreadableIssue } from "../internal/unreadable.js";
import { copiedPart, type PartContext, partBlock, partBlockOfCopy } from "./parts-in.js";
import { quickPartBlock } from "./parts-quick.js";

/** Options of {@link fromGeminiContents}. */
export interface FromGeminiContentsOptions {
  /** The session id stamped on every message. @default a new uuid v7 */
  sessionId?: string;
  /** The number of the first turn (owner `"u"`). @default 1 */
  firstTurnNumber?: number;
  /** Clock for `createdAt`, read once per call. @default the wall clock */
  clock?: Clock;
  /** The id given to a `functionCall` that has none (the Gemini API may leave it out). @default a new uuid v7 */
  generateId?: () => string;
}

/** A call of the latest model content, for the responses without an id that answer it. */
interface OpenCall {
  id: string;
  name: string;
  answered: boolean;
}

/** The calls of one name, and where the first open one may be. */
interface OpenCalls {
  calls: OpenCall[];
  next: number;
}

/**
 * Converts Gemini `contents` (what `generateContent` takes, or a candidate's `content`) to our
 * messages, losslessly: {@link toGeminiContents} gives the same contents back, but that
 * function responses without ids given out of their calls' order come back in that order
 * (the API pairs such a response with the first open call of its name). A model content is
 * an assistant message; a user content a user message, opening a turn unless it holds only
 * function responses (those continue the turn, as tool results). Parts become blocks in place:
 * text, `functionCall` and `functionResponse` (with their ids; a call without one gets
 * `generateId()`, and the response that answers it by name the same), images; every other part
 * whole, as an opaque block: thoughts (`thought: true`) with their `thoughtSignature`, code
 * execution, other media, server tool calls. Fields our blocks do not model, the signatures of
 * function calls and text among them, are kept under `extra.gemini`.
 *
 * @example
 * const messages = fromGeminiContents(history, { sessionId: session.sessionId });
 * @throws {ValidationError} naming the path of each malformed content or part, and of a field
 * whose getter (or proxy's trap) threw (its error the cause).
 */
export function fromGeminiContents(
  contents: string | readonly Content[] | readonly unknown[],
  options: FromGeminiContentsOptions = {},
): Message[] {
  checkConversionOptions(options, "fromGeminiContents options", { generateId: true });
  const list: readonly unknown[] =
    typeof contents === "string" ? [{ role: "user", parts: [{ text: contents }] }] : contents;
  if (arrayLength(list, "Gemini contents") === undefined) {
    throw new ValidationError("Gemini contents", [
      { path: [], message: "must be a string or an array of contents" },
    ]);
  }
  return geminiContentsToOurs(list, options);
}

/**
 * {@link fromGeminiContents} of an array, its options checked; with `idPrefix` (a one-call
 * helper's), message ids are it and the message's position, the same at each call; `origins`
 * told of each message read from one content alone.
 */
export function geminiContentsToOurs(
  list: readonly unknown[],
  options: FromGeminiContentsOptions & { idPrefix?: string },
  origins?: ItemOrigins<Content>,
): Message[] {
  const issues: ValidationIssue[] = [];
  const reader = new ContentsReader(options, issues);
  const { messages } = reader;
  const count = arrayLength(list, "Gemini contents") ?? 0;
  let index = 0;
  let cause: unknown;
  // A getter (or a proxy's trap) that throws is bad input: an issue naming where it throws, the
  // first error the cause; the reading goes on after it. The `try` is around the loop, not each
  // content (nothing on the happy path).
  while (index < count) {
    try {
      // By index: a hole is no content, and is named (`forEach` would skip it).
      for (; index < count; index += 1) {
        const made = messages.length;
        reader.add(list[index], index);
        if (reader.exact) origins?.noteRead(made, messages.length, index);
      }
    } catch (error) {
      // What the options' `generateId` threw (a `ValidationError` for what it returned) is its own.
      if (reader.idFailed || ValidationError.isInstance(error)) throw error;
      cause ??= error;
      issues.push(unreadableIssue(list, index));
      index += 1;
    }
  }
  if (issues.length > 0)
    throw new ValidationError("Gemini contents", issues, cause === undefined ? {} : { cause });
  rememberBuilt(checkMadeByOptions(reader.messages, "fromGeminiContents options"));
  return reader.messages;
}

/** Reads contents in order into messages: numbering turns and pairing responses with calls. */
class ContentsReader implements PartContext {
  readonly issues: ValidationIssue[];
  /** The path of the part being read. */
  path: (string | number)[] = [];
  readonly #turns: TurnBuilder;
  readonly #generateId: () => string;
  #lastRole: string | undefined;
  /** The calls without an id of the last model content, in order, then by name. */
  #calls: OpenCall[] = [];
  #byName = new Map<string, OpenCalls>();
  /** Where the first open one of {@link #calls} may be: those before it are answered. */
  #firstOpen = 0;
  /** The ids given to calls and responses that came without one, once there is one. */
  #generated: Set<string> | undefined;
  /**
   * Whether the content {@link add} read last is written back as it came: not when a call or
   * response has an id that is no id (`""`, not a string), written without one, or a response
   * names by its own id a call that came without one (it is written without an id then).
   */
  exact = true;
  /** Whether the options' `generateId` threw (not a fault of the contents). */
  idFailed = false;

  constructor(
    options: FromGeminiContentsOptions & { idPrefix?: string },
    issues: ValidationIssue[],
  ) {
    this.issues = issues;
    this.#turns = new TurnBuilder(options);
    const generate = checkedGenerateId(options.generateId, "fromGeminiContents options") ?? newId;
    this.#generateId = () => {
      try {
        return generate();
      } catch (error) {
        this.idFailed = true;
        throw error;
      }
    };
  }

  /** The messages read so far. */
  get messages(): Message[] {
    return this.#turns.messages;
  }

  add(content: unknown, index: number): void {
    this.exact = true;
    if (!isPlainObject(content)) {
      this.issues.push({ path: [index], message: "must be a content object" });
      return;
    }
    const { role, parts } = content;
    if (role !== undefined && role !== "user" && role !== "model")
      this.issues.push({ path: [index, "role"], message: 'must be "user" or "model"' });
    if (!Array.isArray(parts) || parts.length === 0) {
      this.issues.push({ path: [index, "parts"], message: "must be a non-empty array of parts" });
      return;
    }
    const model = role === "model";
    // A new list only when the last one holds calls: most model contents leave it empty.
    if (model && this.#calls.length > 0) {
      this.#calls = [];
      this.#byName = new Map();
      this.#firstOpen = 0;
    }
    const blocks: ContentBlock[] = new Array(parts.length);
    for (let partIndex = 0; partIndex < parts.length; partIndex += 1)
      blocks[partIndex] = this.#part(parts[partIndex], index, partIndex);
    const marks = this.#marks(content, index, role);
    const first = blocks[0];
    if (first !== undefined && marks !== undefined) blocks[0] = marked(first, marks);
    // A content of function responses only answers the calls of the turn at hand.
    if (model || (this.#turns.inTurn && allToolResults(blocks)))
      this.#turns.addInTurn(model ? "assistant" : "user", blocks);
    else this.#turns.addUser(blocks);
  }

  /**
   * One part as a block: the common parts read quickly; any other by the full reading, the
   * reader being its context (no object or closures made per part), `path` naming the part.
   */
  #part(part: unknown, index: number, partIndex: number): ContentBlock {
    const plain = isPlainObject(part);
    const quick = plain ? quickPartBlock(part) : undefined;
    if (quick !== undefined) {
      if (quick.type === "tool_result" && this.#generated?.has(quick.toolUseId)) this.exact = false;
      return quick;
    }
    this.path = [index, "parts", partIndex];
    if (!plain) return partBlock(this, part);
    // Its ids told from the copy read: the caller's part is read once.
    const copy = copiedPart(this, part);
    const block = partBlockOfCopy(this, copy);
    const call = copy["functionCall"] ?? copy["functionResponse"];
    const id = isPlainObject(call) ? call["id"] : undefined;
    if (id !== undefined && !isNonEmptyString(id)) this.exact = false;
    else if (block.type === "tool_result" && id !== undefined && this.#generated?.has(id))
      this.exact = false;
    return block;
  }

  /** The content's marks: its other fields, a missing role, and whether it follows its own role. */
  #marks(content: Record<string, unknown>, index: number, given: unknown): JsonObject | undefined {
    const noRole = given === undefined;
    const role = noRole ? "user" : String(given);
    const separate = this.#lastRole === role;
    this.#lastRole = role;
    const others = hasOtherFields(content);
    if (!others && !noRole && !separate) return undefined;
    const marks: JsonObject = {};
    if (others) {
      const rest = without(content as JsonObject, ["role", "parts"]);
      const fields = normalizeJson(rest, [index], this.issues);
      if (isPlainObject(fields)) marks["fields"] = fields as JsonObject;
    }
    if (noRole) marks["noRole"] = true;
    if (separate) marks["separate"] = true;
    return Object.keys(marks).length > 0 ? marks : undefined;
  }

  /** The id of a call without one, remembered for the response that answers it ({@link PartContext}). */
  callId(name: string): string {
    const id = this.#given(this.#generateId());
    const call = { id, name, answered: false };
    this.#calls.push(call);
    const named = this.#byName.get(name);
    if (named === undefined) this.#byName.set(name, { calls: [call], next: 0 });
    else named.calls.push(call);
    return id;
  }

  /** Notes an id given to a call or response that came without one. */
  #given(id: string): string {
    this.#generated ??= new Set();
    this.#generated.add(id);
    return id;
  }

  /**
   * The id of the open call a response without one answers: by name, else the first open (each
   * list read from where the last search stopped: linear in the calls however many answer).
   */
  answerId(name: string): string {
    const named = this.#byName.get(name);
    let open: OpenCall | undefined;
    if (named !== undefined) {
      while (named.calls[named.next]?.answered === true) named.next += 1;
      open = named.calls[named.next];
    }
    if (open === undefined) {
      while (this.#calls[this.#firstOpen]?.answered === true) this.#firstOpen += 1;
      open = this.#calls[this.#firstOpen];
    }
    if (open === undefined) return this.#given(this.#generateId());
    open.answered = true;
    return open.id;
  }
}

/** Whether `content` has an own field besides `role` and `parts` (as `Object.keys` finds them). */
function hasOtherFields(content: Record<string, unknown>): boolean {
  for (const key in content)
    if (HAS_OWN.call(content, key) && key !== "role" && key !== "parts") return true;
  return false;
}

/** Whether every block is a tool result. */
function allToolResults(blocks: readonly ContentBlock[]): boolean {
  for (let index = 0; index < blocks.length; index += 1)
    if (blocks[index]!.type !== "tool_result") return false;
  return true;
}

/** `block` with the content's marks: under `extra.gemini.content`, or inside a part carried whole. */
function marked(block: ContentBlock, marks: JsonObject): ContentBlock {
  if (block.type === "opaque")
    return {
      type: "opaque",
      block: spreadWith(block.block, { [GEMINI_CONTENT_MARKS_KEY]: marks }),
    };
  const fields = block.extra?.[GEMINI_KEY];
  const kept = isPlainObject(fields) ? (fields as JsonObject) : {};
  return spreadWith(block, {
    extra: spreadWith(block.extra ?? {}, { [GEMINI_KEY]: spreadWith(kept, { content: marks }) }),
  });
}
