local function unindex(P, k)
  local ord = redis.call('HGET', k, 'ord')
  if not ord then return end
  redis.call('ZREM', P .. 'tasks:all', ord)
  redis.call('ZREM', P .. 'tasks:status:' .. redis.call('HGET', k, 'status'), ord)
  local t = redis.call('HGET', k, 'type')
  if t then redis.call('ZREM', P .. 'tasks:type:' .. t, ord) end
  local a = redis.call('HGET', k, 'assignedTo')
  if a then redis.call('ZREM', P .. 'tasks:assignee:' .. a, ord) end
  local c = redis.call('HGET', k, 'completedAt')
  if c then redis.call('ZREM', P .. 'tasks:finished', c .. '|' .. redis.call('HGET', k, 'id')) end
end
local function index(P, k)
  local ord = redis.call('HGET', k, 'ord')
  redis.call('ZADD', P .. 'tasks:all', 0, ord)
  redis.call('ZADD', P .. 'tasks:status:' .. redis.call('HGET', k, 'status'), 0, ord)
  local t = redis.call('HGET', k, 'type')
  if t then redis.call('ZADD', P .. 'tasks:type:' .. t, 0, ord) end
  local a = redis.call('HGET', k, 'assignedTo')
  if a then redis.call('ZADD', P .. 'tasks:assignee:' .. a, 0, ord) end
  local c = redis.call('HGET', k, 'completedAt')
  if c then redis.call('ZADD', P .. 'tasks:finished', 0, c .. '|' .. redis.call('HGET', k, 'id')) end
end
