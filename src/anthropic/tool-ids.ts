/** What the Messages API takes as a tool use's id (`^[a-zA-Z0-9_-]+$`). */
const SENDABLE_ID = /^[\w-]+$/;

/** Whether the Messages API takes `id` as a tool use's id as it is. */
export const isSendableToolId = (id: string): boolean => SENDABLE_ID.test(id);

/**
 * A tool use's id as the Messages API takes it: the id itself when it is one (`toolu_…`), else
 * every other character as `_` and a hash of the id after it, so that two ids never meet and the
 * same id is always sent the same (another provider's: Kimi's `functions.bash:0`, a gateway's
 * `call_1|fc_1`). The same for the call and for its result.
 */
export function sendableToolId(id: string): string {
  if (isSendableToolId(id)) return id;
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index += 1)
    hash = Math.imul(hash ^ id.charCodeAt(index), 0x01000193);
  return `${id.replace(/[^\w-]/g, "_")}_${(hash >>> 0).toString(36)}`;
}
