-- ARGV: prefix, then per task: the number of field/value pairs, then the pairs, 'id' first (the task key).
local P = ARGV[1]
local i = 2
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  local k = P .. 'task:' .. ARGV[i + 2]
  for j = i + 1, i + 2 * n, 2 do redis.call('HSET', k, ARGV[j], ARGV[j + 1]) end
  index(P, k)
  i = i + 1 + 2 * n
end
return 1
