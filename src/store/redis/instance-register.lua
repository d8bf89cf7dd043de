local k = KEYS[1]
local reg = redis.call('HGET', k, 'registeredAt')
local exp = tonumber(redis.call('HGET', k, 'expiresAt') or '0')
if (not reg) or exp < tonumber(ARGV[4]) then reg = ARGV[3] end
redis.call('HSET', k, 'roles', ARGV[2], 'registeredAt', reg, 'lastSeenAt', ARGV[3], 'expiresAt', ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
return redis.call('HGETALL', k)
