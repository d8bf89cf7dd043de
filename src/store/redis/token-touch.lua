if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
local cur = redis.call('HGET', KEYS[2], ARGV[1])
if (not cur) or cur < ARGV[2] then redis.call('HSET', KEYS[2], ARGV[1], ARGV[2]) end
return 1
