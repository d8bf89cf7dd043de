// The dashboard's shell: log in with a token (or sign in with the OAuth issuer, sign-in.ts), then one view per hash route (#/tasks), with the live stream's state
// in the header. What a view shows comes from the tools the principal may call; admin actions show for admins only.
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Session, takePageState, token, whenUnauthorized, whoami } from './api.ts';
import { html } from './html.ts';
import { startLive, stopLive, useLiveState } from './live.ts';
import { finishSignIn, returnedFromSignIn, type SignInOptions, signInOptions, startSignIn } from './sign-in.ts';
import { Agents } from './views/agents.ts';
import { Audit } from './views/audit.ts';
import { Catalog } from './views/catalog.ts';
import { LongCallsView } from './views/long-calls.ts';
import { Overview } from './views/overview.ts';
import { Scripts } from './views/scripts.ts';
import { Servers } from './views/servers.ts';
import { Tasks } from './views/tasks.ts';

const VIEWS = [
  { id: 'overview', title: 'Overview', view: Overview },
  { id: 'tasks', title: 'Tasks', view: Tasks },
  { id: 'agents', title: 'Agents', view: Agents },
  { id: 'scripts', title: 'Scripts', view: Scripts },
  { id: 'long-calls', title: 'Long calls', view: LongCallsView },
  { id: 'catalog', title: 'Catalog', view: Catalog },
  { id: 'audit', title: 'Audit', view: Audit, admin: true },
  { id: 'servers', title: 'Servers & tokens', view: Servers, admin: true },
];

/** The route: `#/tasks/t-123` → ['tasks', 't-123']. */
function useRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const on = () => setRoute(read());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

/** The OAuth part of the login form: the sign-in button, or which key to set for one, or nothing without [auth.oauth]. */
function OAuthLogin({ onError }: { onError: (message: string) => void }) {
  const [options, setOptions] = useState<SignInOptions['oauth']>(null);
  useEffect(() => {
    signInOptions().then(
      (o) => setOptions(o.oauth),
      (err) => onError(`OAuth sign-in is unavailable: ${err instanceof Error ? err.message : String(err)}`),
    );
  }, []);
  if (!options) return null;
  if (!('client_id' in options))
    return html`<p class="muted" id="oauth-missing">
      To sign in with ${options.issuer} here, set <code>${options.missing}</code>: register the dashboard there as a
      public client with redirect URI <code>${options.redirect_uri}</code>.
    </p>`;
  const go = () => startSignIn(options).catch((err) => onError(String(err)));
  return html`<button type="button" id="oauth-sign-in" onClick=${go}>Sign in with ${options.issuer}</button>
    <p class="muted">or paste a Switchboard token:</p>`;
}

function Login({ onSession, problem }: { onSession: (s: Session) => void; problem?: string }) {
  const [error, setError] = useState(problem);
  const submit = async (e: Event) => {
    e.preventDefault();
    const value = String(new FormData(e.target as HTMLFormElement).get('token') ?? '').trim();
    if (!value) return setError('Paste a token (it starts with sb_).');
    token.set(value);
    try {
      onSession(await whoami());
    } catch (err) {
      token.clear();
      setError(
        err instanceof ApiError && err.status === 401 ? 'That token is invalid, revoked or expired.' : String(err),
      );
    }
  };
  return html`<main class="login">
    <form onSubmit=${submit}>
      <h1>Switchboard</h1>
      <${OAuthLogin} onError=${setError} />
      <label for="token">Token</label>
      <input id="token" name="token" type="password" autocomplete="off" placeholder="sb_…" autofocus />
      <button type="submit">Log in</button>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      <p class="muted">Create one with <code>switchboard token create NAME --roles admin</code>. It is kept in this tab only.</p>
    </form>
  </main>`;
}

function Shell({ session, onLogout }: { session: Session; onLogout: () => void }) {
  const route = useRoute();
  const live = useLiveState();
  const [menu, setMenu] = useState(false);
  const shown = VIEWS.filter((v) => !v.admin || session.admin);
  const current = shown.find((v) => v.id === route[0]) ?? shown[0];
  useEffect(() => setMenu(false), [current.id]);
  return html`<div class="shell">
    <header>
      <button class="menu" aria-label="Menu" onClick=${() => setMenu(!menu)}>☰</button>
      <strong class="brand">Switchboard</strong>
      <span class=${`live ${live}`} title="Live updates">${live}</span>
      <span class="who" title=${`roles: ${session.roles.join(', ') || 'none'}`}>
        ${session.principal}${session.admin ? html` <span class="badge">admin</span>` : null}
      </span>
      ${session.kind === 'anonymous' ? null : html`<button class="link" onClick=${onLogout}>Log out</button>`}
    </header>
    <nav class=${menu ? 'open' : ''}>
      ${shown.map((v) => html`<a href=${`#/${v.id}`} class=${v === current ? 'active' : ''} data-view=${v.id}>${v.title}</a>`)}
    </nav>
    <main id="view" data-view=${current.id}>
      ${session.kind === 'anonymous' ? html`<p class="warn">No tokens exist: everyone on this machine can use this hub as admin. Create a token to require one.</p>` : null}
      <${current.view} session=${session} route=${route.slice(1)} />
    </main>
  </div>`;
}

/**
 * What the page came with: the session shows the shell and the first views at once; null shows the login form at
 * once — unless the issuer has just sent the browser back, when the sign-in must finish first.
 */
const pageSession = takePageState();

function App() {
  const [session, setSession] = useState<Session | undefined>(pageSession ?? undefined);
  const [checking, setChecking] = useState(pageSession === undefined || (pageSession === null && returnedFromSignIn()));
  const [problem, setProblem] = useState<string | undefined>(undefined);
  useEffect(() => {
    whenUnauthorized(() => {
      const had = token.get() !== null;
      token.clear();
      stopLive();
      setSession(undefined);
      setProblem(had ? 'The token stopped working (revoked or expired). Log in again.' : undefined);
    });
    // The page said who the caller is, or that it must log in: nothing to ask, unless the issuer sent it back.
    if (pageSession !== undefined && !returnedFromSignIn()) return;
    // Back from the issuer: its access token takes the token's place. Without tokens on loopback the hub answers
    // anonymously: then there is nothing to log in with.
    finishSignIn()
      .catch((err: Error) => err)
      .then(async (signedIn) => {
        if (typeof signedIn === 'string') token.set(signedIn);
        try {
          setSession(await whoami());
        } catch {
          // After the 401 handler above, which clears the problem when no token was held.
          if (signedIn instanceof Error) setProblem(signedIn.message);
        }
      })
      .finally(() => setChecking(false));
  }, []);
  useEffect(() => {
    if (session) startLive();
  }, [session]);
  if (checking) return html`<p class="muted">Loading…</p>`;
  if (!session) return html`<${Login} onSession=${setSession} problem=${problem} />`;
  const logout = () => {
    token.clear();
    stopLive();
    setProblem(undefined);
    setSession(undefined);
  };
  return html`<${Shell} session=${session} onLogout=${logout} />`;
}

render(html`<${App} />`, document.getElementById('app') as HTMLElement);
