// The embedded agent session layout (files under .switchboard/sessions/) against the shared session contract.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionNameProblem } from '../../src/sources/agents/session-name.ts';
import { AgentSessionFiles } from '../../src/store/files/agent-sessions.ts';
import { agentSessionContract } from './agent-sessions-contract.ts';

/** The pid of a process that has exited: what a crashed turn leaves in its lock file. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid as number;
}

agentSessionContract('files', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-sessions-'));
  const sessions = new AgentSessionFiles(dir, sessionNameProblem);
  return {
    sessions,
    async staleLock(name, owner) {
      mkdirSync(sessions.dir, { recursive: true });
      writeFileSync(join(sessions.dir, `${name}.lock`), `${deadPid()} - ${owner}`);
    },
    async close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
