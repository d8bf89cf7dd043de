if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'status', ARGV[4]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'clientKey', ARGV[5]) end
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return redis.call('HGETALL', KEYS[1])
