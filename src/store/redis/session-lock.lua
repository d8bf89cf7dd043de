if live(KEYS[1]) then return {0, redis.call('HGET', KEYS[1], 'owner')} end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'expiresAt', now + tonumber(ARGV[2]))
return {1}
