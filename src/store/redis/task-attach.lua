-- KEYS[1] task, KEYS[2] its attachments (hash key -> record JSON); ARGV: key, record, most per task.
if redis.call('EXISTS', KEYS[1]) == 0 then return 'not_found' end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 and redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[3]) then
  return 'full'
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 'ok'
