-- ARGV: prefix, instance id, updatedAt. The first member of the pending index is the next task in list order
-- (all scores are 0, so the order is the member's: priority, then id = creation time).
local P = ARGV[1]
local first = redis.call('ZRANGE', P .. 'tasks:status:pending', 0, 0)[1]
if not first then return false end
local k = P .. 'task:' .. string.sub(first, string.find(first, '|', 1, true) + 1)
unindex(P, k)
redis.call('HSET', k, 'status', 'in_progress', 'assignedTo', ARGV[2], 'updatedAt', ARGV[3])
redis.call('HINCRBY', k, 'version', 1)
index(P, k)
return redis.call('HGETALL', k)
