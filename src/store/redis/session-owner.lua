local h = redis.call('HMGET', KEYS[1], 'owner', 'expiresAt')
if not h[1] then return false end
return {h[1], h[2], tostring(now)}
