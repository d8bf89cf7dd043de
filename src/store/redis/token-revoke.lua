local rec = redis.call('HGET', KEYS[1], ARGV[1])
if not rec then return 0 end
redis.call('HDEL', KEYS[2], cjson.decode(rec).hash)
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('INCR', KEYS[4])
return 1
