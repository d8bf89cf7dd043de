local seen = once_seen(KEYS[2])
if seen then return seen end
new_task(ARGV[1], KEYS[1], 4)
once_keep(KEYS[2], ARGV[2], ARGV[3])
return false
