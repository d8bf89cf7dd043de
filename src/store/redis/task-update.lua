local P = ARGV[1]
local k = KEYS[1]
if redis.call('EXISTS', k) == 0 then return {'not_found'} end
if ARGV[2] ~= '' then
  local s = redis.call('HGET', k, 'status')
  if not string.find(ARGV[2], ',' .. s .. ',', 1, true) then return {'conflict', redis.call('HGETALL', k)} end
end
unindex(P, k)
local n = tonumber(ARGV[4])
for i = 5, 4 + 2 * n, 2 do redis.call('HSET', k, ARGV[i], ARGV[i + 1]) end
for i = 5 + 2 * n, #ARGV do redis.call('HDEL', k, ARGV[i]) end
redis.call('HSET', k, 'updatedAt', ARGV[3])
redis.call('HINCRBY', k, 'version', 1)
index(P, k)
return {'ok', redis.call('HGETALL', k)}
