local n = #ARGV / 2
local last = redis.call('INCRBY', KEYS[1], n)
local first = last - n + 1
for i = 1, n do
  redis.call('ZADD', KEYS[2], ARGV[2 * i - 1], string.format('%016d', first + i - 1) .. '\t' .. ARGV[2 * i])
end
return last
