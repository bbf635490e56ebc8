import type { ValidationIssue } from "../core/errors.js";
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
  /** The estimate of the message's blocks read last (`-1`: not worked out). */
  tokens = -1;
  /** The calls of the conversion's output so far: set its `lastAssistant` as messages go by. */
  readonly calls: CallNames;
  constructor(converted: readonly (Message | undefined)[]) {
    this.calls = new CallNames(converted);
  }
  get path(): Path {
    return [this.message, "content", this.part];
  }
  callName(toolUseId: string): string | undefined {
    this.calls.position = this.message;
    return this.calls.get(toolUseId);
  }
}
