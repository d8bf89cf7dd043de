local function once_seen(k) return redis.call('GET', k) end
local function once_keep(k, record, ttl) redis.call('SET', k, record, 'PX', ttl) end
