// Servers & tokens (admins): restart, disable or enable an upstream server, review and approve its withheld tool
// definitions (system.servers) and create or revoke
// API tokens (system.tokens) — both tools, so each action is checked, limited and audited like any call.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { useData, useReloadOn } from '../data.ts';
import { html } from '../html.ts';
import { ErrorLine, Loading, Time } from '../parts.ts';
import { ServerTable } from './overview.ts';
import { Withheld } from './withheld.ts';

function UpstreamServers() {
  const servers = useData(() => call('system.servers', { action: 'list' }));
  useReloadOn(['upstream.status', 'config.changed', 'upstream.withheld', 'upstream.approved'], servers.reload);
  const [error, setError] = useState<string | undefined>(undefined);
  const act = (action: string, name: string) => async () => {
    setError(undefined);
    try {
      await call('system.servers', { action, name });
      servers.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return html`<section>
    <h2>Upstream servers</h2>
    <${ErrorLine} error=${servers.error ?? error} />
    ${servers.data ? html`<${Withheld} servers=${servers.data.servers} reload=${servers.reload} />` : null}
    ${
      servers.data
        ? html`<${ServerTable}
            servers=${servers.data.servers}
            actions=${(s: any) =>
              s.status === 'disabled'
                ? html`<button onClick=${act('enable', s.name)}>Enable</button>`
                : html`<button onClick=${act('restart', s.name)} disabled=${s.status === 'invalid'}>Restart</button>
                    <button class="danger" onClick=${act('disable', s.name)}>Disable</button>`}
          />`
        : html`<${Loading} />`
    }
  </section>`;
}

function Tokens() {
  const tokens = useData(() => call('system.tokens', { action: 'list' }));
  const [error, setError] = useState<string | undefined>(undefined);
  const [secret, setSecret] = useState<{ name: string; token: string } | undefined>(undefined);
  const run = async (input: Record<string, unknown>) => {
    setError(undefined);
    try {
      const answer = await call('system.tokens', input);
      tokens.reload();
      return answer;
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const create = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const roles = String(form.get('roles') ?? '')
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean);
    const expires = String(form.get('expires') ?? '').trim();
    const answer = await run({
      action: 'create',
      name: String(form.get('name') ?? '').trim(),
      roles,
      ...(expires ? { expires } : {}),
    });
    if (answer) setSecret({ name: answer.created.name, token: answer.token });
  };
  const revoke = (name: string) => () => {
    if (confirm(`Revoke the token '${name}'? Callers using it are refused at once.`))
      void run({ action: 'revoke', name });
  };
  return html`<section>
    <h2>Tokens</h2>
    <${ErrorLine} error=${tokens.error ?? error} />
    ${secret ? html`<p class="warn new-token">Token <strong>${secret.name}</strong> — copy it now, it is not shown again: <code>${secret.token}</code></p>` : null}
    <form class="filters token-form" onSubmit=${create}>
      <input name="name" placeholder="name" aria-label="Token name" required />
      <input name="roles" placeholder="roles: agent, admin" aria-label="Roles" required />
      <input name="expires" placeholder="expires: 30d (optional)" aria-label="Expires" />
      <button type="submit">Create token</button>
    </form>
    ${
      tokens.data
        ? html`<div class="scroll"><table class="tokens">
            <thead><tr><th>Name</th><th>Roles</th><th>Created</th><th>Expires</th><th>Last used</th><th></th></tr></thead>
            <tbody>${tokens.data.tokens.map(
              (t: any) => html`<tr key=${t.name} data-token=${t.name}>
                <td>${t.name}</td><td>${t.roles.join(', ')}</td><td><${Time} at=${t.createdAt} /></td>
                <td>${t.expiresAt ? html`<${Time} at=${t.expiresAt} />${t.expired ? ' (expired)' : ''}` : 'never'}</td>
                <td><${Time} at=${t.lastUsedAt} /></td>
                <td><button class="danger revoke" onClick=${revoke(t.name)}>Revoke</button></td>
              </tr>`,
            )}</tbody>
          </table></div>`
        : html`<${Loading} />`
    }
  </section>`;
}

export function Servers() {
  return html`<h1>Servers & tokens</h1><${UpstreamServers} /><${Tokens} />`;
}
