if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2])
redis.call('SET', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[3], 0, ARGV[1])
return 1
