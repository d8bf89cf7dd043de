local seq = redis.call('INCR', KEYS[1])
redis.call('ZADD', KEYS[2], ARGV[1], string.format('%016d', seq) .. '\t' .. ARGV[2])
return seq
