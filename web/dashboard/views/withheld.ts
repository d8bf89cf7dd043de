// Tool definitions withheld until approved (docs/security.md#pinned-tools): a notice per server whose tools changed
// since approved, a Review button that shows each change as a diff (system.servers `pending`) and an Approve button
// (system.servers `approve`) — tool calls, so the approval is checked and audited like any other.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { html } from '../html.ts';
import { ErrorLine } from '../parts.ts';

/** One diff line, coloured by its sign: `-` approved, `+` offered. */
function DiffLine({ line }: { line: string }) {
  const kind = /^\s+- /.test(line) ? 'del' : /^\s+\+ /.test(line) ? 'add' : '';
  return html`<span class=${kind}>${line}\n</span>`;
}

function Review({ server, approved }: { server: string; approved: () => void }) {
  const [changes, setChanges] = useState<any[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const review = async () => {
    setError(undefined);
    try {
      const answer = await call('system.servers', { action: 'pending', name: server });
      setChanges(answer.pending[0]?.tools ?? []);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const approve = async () => {
    setError(undefined);
    try {
      // Exactly the definitions reviewed: one the server changed again meanwhile stays withheld.
      await call('system.servers', { action: 'approve', name: server, tools: (changes ?? []).map((c) => c.name) });
      setChanges(undefined);
      approved();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return html`<div class="withheld-review">
    <${ErrorLine} error=${error} />
    ${
      changes === undefined
        ? html`<button onClick=${review}>Review changes</button>`
        : html`${changes.map((c) => html`<pre class="diff" data-tool=${c.name}>${c.diff.split('\n').map((l: string) => html`<${DiffLine} line=${l} />`)}</pre>`)}
            <button class="approve" onClick=${approve} disabled=${changes.length === 0}>Approve ${changes.length} definition(s)</button>
            <button onClick=${() => setChanges(undefined)}>Close</button>`
    }
  </div>`;
}

/** The notice: nothing when no server has withheld definitions. */
export function Withheld({ servers, reload }: { servers: any[]; reload: () => void }) {
  const held = servers.filter((s) => s.withheld);
  if (!held.length) return null;
  return html`<section class="withheld">
    <h2>Tool definitions withheld until approved</h2>
    <p class="warn">These servers offer tools that are new or changed since they were approved. Clients do not see
      them until an admin reviews the difference and approves it (or runs <code>switchboard mcp approve NAME</code>).</p>
    ${held.map(
      (s) => html`<div class="withheld-server" data-withheld=${s.name}>
        <strong>${s.name}</strong>: ${s.withheld} tool definition(s) withheld
        <${Review} server=${s.name} approved=${reload} />
      </div>`,
    )}
  </section>`;
}
