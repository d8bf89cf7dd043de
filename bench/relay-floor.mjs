// The floor for any stdio proxy: a process that relays bytes between its client and the upstream child without
// reading them (no parsing, no MCP, no pipeline). What it adds over calling the upstream directly is the cost of
// the second pipe hop and of a third process on the machine. Usage: `node bench/relay-floor.mjs CMD ARGS...`.
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.on('exit', (code) => process.exit(code ?? 0));
