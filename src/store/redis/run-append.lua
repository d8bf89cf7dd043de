if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 4, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
redis.call('HINCRBY', KEYS[1], 'entries', #ARGV - 3)
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return 1
