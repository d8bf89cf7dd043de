// Memory held by a hub with ten small idle stdio servers (issue 32 §2), before and after idle_timeout_ms stops them:
// the resident memory (RSS) of `switchboard serve` and of every process below it, summed, once all ten answered and
// again once their idle timeout passed; beside it, the bare SDK echo server alone (the anchor: one small server).
// The servers are the bare SDK echo server (bench/bare-sdk-server.mjs), fenced (the default) or not (`--unfenced`).
// Usage: `node bench/idle-servers.mjs [--unfenced] [--servers N]` after `npm run build`.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { machine } from './lib/proc.mjs';
import { BIN, ROOT, switchboardEnv, tempProject } from './lib/servers.mjs';
import { sleep } from './lib/stats.mjs';
import { StdioDriver } from './lib/stdio-driver.mjs';

const argv = process.argv.slice(2);
const UNFENCED = argv.includes('--unfenced');
const N = Number(argv[argv.indexOf('--servers') + 1]) || 10;
const IDLE_MS = 3000;
const BARE = join(ROOT, 'bench/bare-sdk-server.mjs');

/** RSS in KiB of a process (0 once gone). */
function rssKiB(pid) {
  try {
    return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function tree(root) {
  const children = new Map();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${e}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(e)]);
    } catch {}
  }
  const out = [];
  const walk = (p) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

const mib = (kib) => (kib / 1024).toFixed(0);
function measure(hubPid) {
  const below = tree(hubPid);
  const hub = rssKiB(hubPid);
  const children = below.reduce((sum, p) => sum + rssKiB(p), 0);
  return { hub, children, total: hub + children, processes: below.length };
}

const dir = tempProject();
mkdirSync(join(dir, '.switchboard'), { recursive: true });
const servers = Array.from(
  { length: N },
  (_, i) =>
    `[[servers]]\nname = "s${i}"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(BARE)}, "stdio"]\nidle_timeout_ms = ${IDLE_MS}\n${UNFENCED ? 'sandbox = "off"\n' : ''}`,
);
writeFileSync(join(dir, '.switchboard/config.toml'), servers.join('\n'));
const driver = new StdioDriver({
  command: process.execPath,
  args: [BIN, '--cwd', dir, 'serve'],
  env: switchboardEnv(dir),
  tool: 's0__echo',
});
await driver.initialize();
// Every server answers once (each is started and connected).
for (let i = 0; i < N; i++) {
  driver.tool = `s${i}__echo`;
  for (let t = 0; t < 200 && !(await driver.call(-1).catch(() => false)); t++) await sleep(50);
}
await sleep(500);
const busy = measure(driver.pid);
await sleep(IDLE_MS + 2000);
const idle = measure(driver.pid);
// The anchor: one bare SDK server on its own.
const bare = spawn(process.execPath, [BARE, 'stdio'], { stdio: ['pipe', 'ignore', 'ignore'] });
await sleep(1000);
const bareKiB = rssKiB(bare.pid);
bare.kill();
// The first call after the rest starts its server again: its time, for what idling costs a user.
driver.tool = 's0__echo';
const t0 = performance.now();
await driver.call(-1);
const wakeMs = performance.now() - t0;
await driver.close();

const m = machine();
console.log(
  `# ${N} idle stdio servers (${UNFENCED ? 'unfenced' : 'fenced by bubblewrap'}) — ${new Date().toISOString()}, ${m.cpu}, ${m.cores} cores, Node ${m.node}, load ${loadavg()[0].toFixed(1)}\n`,
);
console.log('| moment | hub RSS MiB | processes below it | their RSS MiB | total MiB |');
console.log('|---|---:|---:|---:|---:|');
console.log(
  `| all ${N} connected | ${mib(busy.hub)} | ${busy.processes} | ${mib(busy.children)} | ${mib(busy.total)} |`,
);
console.log(
  `| after idle_timeout_ms (${IDLE_MS} ms) | ${mib(idle.hub)} | ${idle.processes} | ${mib(idle.children)} | ${mib(idle.total)} |`,
);
console.log(`\nanchor: one bare SDK echo server alone ${mib(bareKiB)} MiB RSS`);
console.log(`first call to a rested server (starts it again): ${wakeMs.toFixed(0)} ms`);
