-- KEYS[1] task, KEYS[2] its attachments; ARGV: prefix. Answers the task as it was, false when there was none.
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local h = redis.call('HGETALL', KEYS[1])
unindex(ARGV[1], KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2])
return h
