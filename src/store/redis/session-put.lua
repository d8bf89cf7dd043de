if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if ARGV[2] ~= '' and redis.call('HGET', KEYS[2], 'owner') ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
if ARGV[3] == '1' and ARGV[2] ~= '' then redis.call('DEL', KEYS[2]) end
return 1
