local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local remaining = -1
if ARGV[1] ~= '' then
  local limit = tonumber(ARGV[1])
  local window = tonumber(ARGV[2])
  local rate = limit / window
  local k = KEYS[1]
  local tokens = tonumber(redis.call('HGET', k, 't') or ARGV[1])
  local at = tonumber(redis.call('HGET', k, 'u') or now)
  tokens = math.min(limit, tokens + (now - at) * rate)
  if tokens < 1 then
    redis.call('HSET', k, 't', tostring(tokens), 'u', now)
    redis.call('PEXPIRE', k, window * 2)
    return {'rate', math.max(1, math.ceil((1 - tokens) / rate)), 0, 'closed'}
  end
  tokens = tokens - 1
  redis.call('HSET', k, 't', tostring(tokens), 'u', now)
  redis.call('PEXPIRE', k, window * 2)
  remaining = math.floor(tokens)
end
local b = KEYS[2]
local state = redis.call('HGET', b, 'state') or 'closed'
if state == 'closed' then return {'ok', remaining, 0, state, tonumber(redis.call('HGET', b, 'failures') or '0')} end
local reset = tonumber(ARGV[4])
if state == 'open' then
  local wait = tonumber(redis.call('HGET', b, 'openedAt')) + reset - now
  if wait > 0 then return {'breaker', wait, 0, state} end
  state = 'half-open'
  redis.call('HSET', b, 'state', state, 'probes', 0)
end
if tonumber(redis.call('HGET', b, 'probes') or '0') < tonumber(ARGV[5]) then
  redis.call('HINCRBY', b, 'probes', 1)
  return {'ok', remaining, 1, state, 0}
end
return {'breaker', math.max(1, math.min(reset, 1000)), 0, state}
