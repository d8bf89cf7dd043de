if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 'name' end
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then return 'hash' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
redis.call('INCR', KEYS[3])
return 'ok'
