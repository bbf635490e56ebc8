import { StoreError } from "../../../src/store/store-error.js";

/**
 * A check for `toSatisfy`: the error is the `StoreError` a failed read or write of `sessionId`
 * gives (code `io_error`, the session in its fields and message), its cause accepted by `cause`.
 */
export function storeIoError(
  sessionId: string,
  cause: (cause: unknown) => boolean,
): (error: unknown) => boolean {
  return (error) =>
    StoreError.isInstance(error) &&
    error.code === "io_error" &&
    error.sessionId === sessionId &&
    error.message.includes(`session "${sessionId}"`) &&
    cause(error.cause);
}
