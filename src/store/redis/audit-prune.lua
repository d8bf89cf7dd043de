local n = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
return n
