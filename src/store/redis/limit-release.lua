local p = tonumber(redis.call('HGET', KEYS[1], 'probes') or '0')
if p > 0 then redis.call('HSET', KEYS[1], 'probes', p - 1) end
return 1
