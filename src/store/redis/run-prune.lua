local n = 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])) do
  local k = ARGV[1] .. 'srun:' .. id
  local h = redis.call('HMGET', k, 'status', 'updatedAt')
  if h[1] == 'finished' and h[2] < ARGV[2] then
    redis.call('DEL', k, k .. ':journal')
    redis.call('ZREM', KEYS[1], id)
    n = n + 1
  end
end
return n
