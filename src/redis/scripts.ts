// Lua scripts of the Redis store. Redis runs each one atomically: no other command runs
// between its reads and its writes, which makes each a compare-and-swap. Keys of one session
// share a hash tag, so the scripts also run on Redis Cluster.
//
// Per session: `meta` a hash {tail, version, through}; `log` a list of the records
// `through + 1 … tail`; `head` the head's data; `lease` a hash {owner, expires}; `values` a hash.

/**
 * Reads the state: {tail, version, through, head (false at version 0 or when it is the known
 * version), records after max(after, through)…}.
 */
const READ_STATE = `
local function read_state(after, known)
  local m = redis.call('HMGET', KEYS[1], 'tail', 'version', 'through')
  local tail = tonumber(m[1] or '0')
  local version = tonumber(m[2] or '0')
  local through = tonumber(m[3] or '0')
  local head = false
  if version ~= known then head = redis.call('GET', KEYS[2]) end
  local reply = {tail, version, through, head}
  local from = math.max(after, through)
  if from < tail then
    local records = redis.call('LRANGE', KEYS[3], from - through, -1)
    for i = 1, #records do reply[4 + i] = records[i] end
  end
  return reply
end
`;

/** KEYS meta, head, log; ARGV after, known version (-1: none) → the state. */
export const READ = `${READ_STATE}
return read_state(tonumber(ARGV[1]), tonumber(ARGV[2]))
`;

/**
 * KEYS meta, head, log; ARGV expected tail, expected version, data → {the new tail}, or on a
 * conflict {-1, the state after the expected tail…}.
 */
export const APPEND = `${READ_STATE}
local m = redis.call('HMGET', KEYS[1], 'tail', 'version')
local tail = tonumber(m[1] or '0')
local version = tonumber(m[2] or '0')
if tail ~= tonumber(ARGV[1]) or version ~= tonumber(ARGV[2]) then
  local reply = read_state(tonumber(ARGV[1]), tonumber(ARGV[2]))
  table.insert(reply, 1, -1)
  return reply
end
redis.call('RPUSH', KEYS[3], ARGV[3])
redis.call('HSET', KEYS[1], 'tail', tail + 1)
return {tail + 1}
`;

/** KEYS meta, head, log; ARGV expected version, through, data → 1 when swapped, 0 on a conflict. */
export const SWAP_HEAD = `
local m = redis.call('HMGET', KEYS[1], 'tail', 'version', 'through')
local tail = tonumber(m[1] or '0')
local version = tonumber(m[2] or '0')
local through = tonumber(m[3] or '0')
local target = tonumber(ARGV[2])
if version ~= tonumber(ARGV[1]) or target < through or target > tail then return 0 end
redis.call('SET', KEYS[2], ARGV[3])
redis.call('HSET', KEYS[1], 'version', version + 1, 'through', target)
if target > through then redis.call('LTRIM', KEYS[3], target - through, -1) end
return 1
`;

/** KEYS lease; ARGV owner, now (ms), ttl (ms) → 1 when held, 0 while another owner's lease lasts. */
export const ACQUIRE_LEASE = `
local lease = redis.call('HMGET', KEYS[1], 'owner', 'expires')
if lease[1] and lease[1] ~= ARGV[1] and tonumber(lease[2]) > tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'expires', tonumber(ARGV[2]) + tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) + 60000)
return 1
`;

/** KEYS lease; ARGV owner → 1 when released. */
export const RELEASE_LEASE = `
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
