local k = KEYS[1]
local exp = redis.call('HGET', k, 'expiresAt')
if (not exp) or tonumber(exp) < tonumber(ARGV[3]) then return false end
redis.call('HSET', k, 'lastSeenAt', ARGV[2], 'expiresAt', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
return redis.call('HGETALL', k)
