if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if ARGV[1] ~= '' and redis.call('HGET', KEYS[3], 'owner') ~= ARGV[1] then return 0 end
for i = 2, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
return 1
