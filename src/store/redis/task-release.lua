local P = ARGV[1]
local released = {}
for _, ord in ipairs(redis.call('ZRANGE', P .. 'tasks:assignee:' .. ARGV[2], 0, -1)) do
  local id = string.sub(ord, string.find(ord, '|', 1, true) + 1)
  local k = P .. 'task:' .. id
  local s = redis.call('HGET', k, 'status')
  if s == 'assigned' or s == 'in_progress' then
    unindex(P, k)
    redis.call('HSET', k, 'status', 'pending', 'updatedAt', ARGV[3])
    redis.call('HDEL', k, 'assignedTo')
    redis.call('HINCRBY', k, 'version', 1)
    index(P, k)
    released[#released + 1] = id
  end
end
return released
