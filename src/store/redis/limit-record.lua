local b = KEYS[1]
if ARGV[3] == '1' then
  local p = tonumber(redis.call('HGET', b, 'probes') or '0')
  redis.call('HSET', b, 'probes', math.max(0, p - 1))
end
if ARGV[2] == '0' then
  redis.call('HSET', b, 'failures', 0, 'state', 'closed')
else
  local f = redis.call('HINCRBY', b, 'failures', 1)
  local state = redis.call('HGET', b, 'state') or 'closed'
  if state == 'half-open' or (state == 'closed' and f >= tonumber(ARGV[4])) then
    local t = redis.call('TIME')
    redis.call('HSET', b, 'state', 'open', 'openedAt', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
    redis.call('HINCRBY', b, 'opens', 1)
  end
end
redis.call('SADD', KEYS[2], ARGV[1])
return {redis.call('HGET', b, 'state') or 'closed', tonumber(redis.call('HGET', b, 'failures') or '0'),
  tonumber(redis.call('HGET', b, 'openedAt') or '0'), tonumber(redis.call('HGET', b, 'opens') or '0')}
