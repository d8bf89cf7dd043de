local function new_task(P, k, first)
  for i = first, #ARGV, 2 do redis.call('HSET', k, ARGV[i], ARGV[i + 1]) end
  index(P, k)
end
