local last = redis.call('INCRBY', KEYS[1], #ARGV)
local first = last - #ARGV + 1
for i = 1, #ARGV do redis.call('RPUSH', KEYS[2], (first + i - 1) .. '\t' .. ARGV[i]) end
return last
