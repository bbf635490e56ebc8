// Lua scripts of the Redis store. Redis runs each one atomically: no other command runs
// between its reads and its writes, which makes each a compare-and-swap. Keys of one session
// share a hash tag, so the scripts also run on Redis Cluster.
//
// Per session: `meta` a hash {tail, version, through}; `log` a list of the records
// `through + 1 … tail`; `head` the head's data; `lease` a hash {owner, expires}; `values` a hash.

/**
 * Checks of data the store did not write: a key of another type, a malformed field, a log
 * that does not hold the records the meta names. Each raises `AC_BADDATA <field> <problem>`,
 * which the store turns into a `ValidationError` naming the session and the field.
 */
const CHECKS = `
local function bad(field, problem)
  error({err = 'AC_BADDATA ' .. field .. ' ' .. problem})
end
local function expect_type(index, name, kind)
  local found = redis.call('TYPE', KEYS[index])['ok']
  if found ~= 'none' and found ~= kind then bad(name, 'is a ' .. found .. ', not a ' .. kind) end
end
local function whole(value, field)
  if not value then return 0 end
  if string.len(value) > 16 or not string.match(value, '^%d+$') then
    bad(field, 'must be a whole number >= 0 (it is "' .. string.sub(value, 1, 40) .. '")')
  end
  return tonumber(value)
end
local function time(value, field)
  local number = tonumber(value)
  if not number or number ~= number or number < 0 then
    bad(field, 'must be a time in ms (it is "' .. string.sub(tostring(value), 1, 40) .. '")')
  end
  return number
end
`;

/**
 * Reads the meta {tail, version, through}, checked against the keys' types and the log's
 * length; and the state: {tail, version, through, head (false at version 0 or when it is the
 * known version), records after max(after, through)…}.
 */
const READ_STATE = `${CHECKS}
local function read_meta()
  expect_type(1, 'meta', 'hash')
  expect_type(2, 'head', 'string')
  expect_type(3, 'log', 'list')
  local m = redis.call('HMGET', KEYS[1], 'tail', 'version', 'through')
  local tail = whole(m[1], 'meta.tail')
  local version = whole(m[2], 'meta.version')
  local through = whole(m[3], 'meta.through')
  if through > tail then bad('meta.through', 'is ' .. through .. ', past the tail (' .. tail .. ')') end
  local length = redis.call('LLEN', KEYS[3])
  if length ~= tail - through then
    bad('log', 'holds ' .. length .. ' records where the meta names ' .. (tail - through) .. ': records were lost (an evicted key, a lagging replica?)')
  end
  return tail, version, through
end
local function read_state(after, known)
  local tail, version, through = read_meta()
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
local tail, version = read_meta()
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
export const SWAP_HEAD = `${READ_STATE}
local tail, version, through = read_meta()
local target = tonumber(ARGV[2])
if version ~= tonumber(ARGV[1]) or target < through or target > tail then return 0 end
redis.call('SET', KEYS[2], ARGV[3])
redis.call('HSET', KEYS[1], 'version', version + 1, 'through', target)
if target > through then redis.call('LTRIM', KEYS[3], target - through, -1) end
return 1
`;

/** KEYS lease; ARGV owner, now (ms), ttl (ms) → 1 when held, 0 while another owner's lease lasts. */
export const ACQUIRE_LEASE = `${CHECKS}
expect_type(1, 'lease', 'hash')
local lease = redis.call('HMGET', KEYS[1], 'owner', 'expires')
if lease[1] and lease[1] ~= ARGV[1] and time(lease[2], 'lease.expires') > tonumber(ARGV[2]) then
  return 0
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'expires', tonumber(ARGV[2]) + tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) + 60000)
return 1
`;

/** KEYS lease; ARGV owner → 1 when released. */
export const RELEASE_LEASE = `${CHECKS}
expect_type(1, 'lease', 'hash')
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
