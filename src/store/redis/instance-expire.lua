local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[2])
for _, id in ipairs(ids) do
  redis.call('DEL', ARGV[1] .. 'instance:' .. id)
  redis.call('ZREM', KEYS[1], id)
end
return ids
