new_task(ARGV[1], KEYS[1], 2)
return 1
