if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'clientKey', ARGV[2], 'principal', ARGV[3], 'name', ARGV[4],
  'status', 'running', 'createdAt', ARGV[5], 'updatedAt', ARGV[5], 'entries', 0)
redis.call('ZADD', KEYS[3], ARGV[6], ARGV[1])
return 1
