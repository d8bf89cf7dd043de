if live(KEYS[3]) then return -1 end
local existed = redis.call('DEL', KEYS[1])
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('ZREM', KEYS[4], ARGV[1])
return existed
