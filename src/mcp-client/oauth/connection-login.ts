// The OAuth hooks of one upstream connection (connection.ts): whether its login has tokens to connect with, what a
// refusal for the login means — a wider scope remembered for the next login (step-up), or `login required` until
// someone logs in — and the poll for a new login (`mcp login`, perhaps in another process). The connection keeps its
// state machine; these say which way it goes.
import { InsufficientScopeError } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../../core/errors.ts';
import type { OAuthSession } from './session.ts';

/** While a login is required, the store is read this often for a new one (`mcp login` from another process). */
const LOGIN_POLL_MS = 2_000;

/** Why a connection cannot use its login: it could not be read (retried), or a person must log in. */
export interface LoginRefusal {
  status: 'failed' | 'login_required';
  why: string;
}

export class ConnectionLogin {
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    readonly session: OAuthSession,
    private readonly server: string,
  ) {}

  /** Before connecting, read the login from the store; without tokens the connection waits instead of asking. */
  async check(): Promise<LoginRefusal | undefined> {
    try {
      await this.session.load();
    } catch (err) {
      return { status: 'failed', why: (err as Error).message };
    }
    if (this.session.hasTokens() && this.session.login?.state !== 'login_required') return undefined;
    return { status: 'login_required', why: this.session.loginRequired().message };
  }

  /**
   * A connect that failed for the login: why, for `login_required`; undefined for any other failure. Even listing
   * may need more than the login granted (403 insufficient_scope): the next login asks for it.
   */
  async connectRefused(err: unknown): Promise<string | undefined> {
    if (err instanceof InsufficientScopeError) {
      const message = this.session.loginRequired().message;
      const scope = await this.session.requireScope(err.requiredScope ?? '');
      return message.replace(/ \(.*\)\. Run:/, ` with a wider scope ('${scope}'). Run:`);
    }
    if (err instanceof SwitchboardError && err.details?.loginRequired) return err.message;
    return undefined;
  }

  /**
   * A call the server refused for the login: a 403 asking for a wider scope is remembered for the next login and
   * thrown as FORBIDDEN saying so; true when the login could not be renewed (the connection needs a new one).
   */
  async callRefused(err: unknown): Promise<boolean> {
    if (err instanceof InsufficientScopeError) {
      const scope = await this.session.requireScope(err.requiredScope ?? '');
      const command = this.session.loginRequired().details?.command as string;
      throw new SwitchboardError(
        'FORBIDDEN',
        `Upstream server '${this.server}' needs a wider scope for this call: '${err.requiredScope ?? '(unnamed)'}'. The next login asks for '${scope}'; run: ${command}`,
        { server: this.server, requiredScope: scope, command },
      );
    }
    return err instanceof SwitchboardError && Boolean(err.details?.loginRequired);
  }

  /** True while a poll for a new login is waiting. */
  get watching(): boolean {
    return this.timer !== undefined;
  }

  /** Poll the store for a new login (written by `mcp login`, perhaps in another process); `then` once one is there. */
  watch(then: () => void): void {
    if (this.stopped || this.timer) return;
    const seen = this.session.login?.updatedAt;
    const poll = () => {
      this.timer = setTimeout(async () => {
        const now = await this.session.load().catch(() => undefined);
        if (this.stopped) return;
        if (now && now.updatedAt !== seen && now.state === 'active') {
          this.timer = undefined;
          then();
        } else poll();
      }, LOGIN_POLL_MS);
      this.timer.unref();
    };
    poll();
  }

  /** Stop waiting for a new login (one was made in this process, or the connection stops). */
  unwatch(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  stop(): void {
    this.stopped = true;
    this.unwatch();
  }
}
