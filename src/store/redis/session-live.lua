local function live(k) local e = redis.call('HGET', k, 'expiresAt'); return e and tonumber(e) > now end
