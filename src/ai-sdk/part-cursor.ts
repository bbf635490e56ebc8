import { ValidationError, type ValidationIssue } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { CallNames } from "./call-names.js";
import type { PartContext } from "./parts-in.js";

type Path = (string | number)[];

/**
 * The context of the parts of one conversion, moved from part to part without allocating.
 * It finds a result's call in the messages converted so far ({@link CallNames}).
 */
export class PartCursor implements PartContext {
  readonly issues: ValidationIssue[] = [];
  message = 0;
  part = 0;
  /** See {@link PartContext.inputLength}. */
  inputLength = -1;
  /** See {@link PartContext.copyInputs}. */
  copyInputs = false;
  /** Whether a `reasoning` part was read (only those become thinking blocks). */
  reasoning = false;
  /** The estimate of the message's blocks read last (`-1`: not worked out). */
  tokens = -1;
  /** What the first field that could not be read threw (a hostile getter's error). */
  readError: unknown;
  /** The calls of the conversion's output so far: set its `lastAssistant` as messages go by. */
  readonly calls: CallNames;
  constructor(converted: readonly (Message | undefined)[]) {
    this.calls = new CallNames(converted);
  }
  get path(): Path {
    return [this.message, "content", this.part];
  }
  /**
   * An issue for the message at `index`, which threw while it was read (a getter, a proxy's
   * trap): named down to the field a getter holds (found without calling one) in the message,
   * or in the part being read when it threw. The first error thrown is kept, as the
   * `ValidationError`'s `cause`.
   */
  unreadableAt(messages: readonly unknown[], index: number, error: unknown): void {
    if (ValidationError.isInstance(error)) throw error;
    this.readError ??= error;
    const path: Path = [index];
    const message = dataValue(messages, index);
    const content =
      this.part < 0 || this.message !== index ? undefined : dataValue(message, "content");
    const part = content === undefined ? undefined : dataValue(content, this.part);
    if (part !== undefined) path.push("content", this.part);
    const key = accessorKey(part ?? message);
    if (key !== undefined) path.push(key);
    this.issues.push({ path, message: "could not be read (a getter or proxy threw)" });
  }
  callName(toolUseId: string): string | undefined {
    this.calls.position = this.message;
    return this.calls.get(toolUseId);
  }
}

/** The value of `record`'s own data property `key`, read without calling a getter. */
function dataValue(record: unknown, key: string | number): unknown {
  if (typeof record !== "object" || record === null) return undefined;
  try {
    const field = Object.getOwnPropertyDescriptor(record, key);
    return field !== undefined && "value" in field ? field.value : undefined;
  } catch {
    return undefined;
  }
}

/** The first own field of `record` a getter holds, found without calling it. */
function accessorKey(record: unknown): string | undefined {
  if (typeof record !== "object" || record === null) return undefined;
  try {
    const fields = Object.getOwnPropertyDescriptors(record);
    return Object.keys(fields).find((key) => fields[key]!.get !== undefined);
  } catch {
    return undefined;
  }
}
