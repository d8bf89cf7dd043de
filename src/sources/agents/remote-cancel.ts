// Cancelling a turn that another instance runs: instances on one Redis share the bus, so `agent.cancel` asks there
// and the instance running the turn aborts it. Without a shared bus (SQLite) it cannot be reached.
import type { Services } from '../../core/context.ts';
import { SwitchboardError } from '../../core/errors.ts';
import type { TurnAdmission } from './admission.ts';
import type { SessionStore } from './session-store.ts';
import type { SessionMeta } from './session-types.ts';

/** The bus event that asks whichever instance runs a session's turn to cancel it (instances on one Redis). */
export const CANCEL_EVENT = 'agent.cancel_requested';

/** How long `agent.cancel` waits for another instance to stop the turn it asked it to cancel. */
export const REMOTE_CANCEL_WAIT_MS = 10_000;

/** What `agent.cancel` answers. */
export interface CancelReport {
  session_id: string;
  cancelled: boolean;
  status: string;
  message: string;
}

export class RemoteCancel {
  /** While turns run here: the subscription that hears cancels asked for through other instances. */
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly services: Services,
    private readonly sessions: SessionStore,
    private readonly turns: TurnAdmission,
    /** The session as it stands (the runtime's `view`: a dead holder's turn reads as interrupted). */
    private readonly view: (name: string) => Promise<SessionMeta>,
  ) {}

  /**
   * Cancel a turn another process runs: the request goes out on the bus, and this waits (bounded) until the
   * session store says the turn stopped. Without a shared bus, CONFLICT says where the turn runs.
   */
  async request(name: string): Promise<CancelReport> {
    const holder = (await this.sessions.lockOwner(name))?.holder ?? 'another process';
    if (this.services.store.kind !== 'redis')
      throw new SwitchboardError(
        'CONFLICT',
        `Session '${name}' runs in another Switchboard process (${holder}); cancel it there.`,
      );
    this.services.bus.publish({ type: CANCEL_EVENT, session: name, at: new Date().toISOString() });
    const until = Date.now() + REMOTE_CANCEL_WAIT_MS;
    let meta = await this.view(name);
    while (meta.status === 'running' && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      meta = await this.view(name);
    }
    if (meta.status === 'running')
      throw new SwitchboardError(
        'UNAVAILABLE',
        `Asked the Switchboard instance running session '${name}' (${holder}) to cancel its turn, but it was still running after ${REMOTE_CANCEL_WAIT_MS / 1000} s. Check that instance is connected to Redis, or retry agent__cancel.`,
      );
    return {
      session_id: name,
      cancelled: meta.status === 'cancelled',
      status: meta.status,
      message:
        meta.status === 'cancelled'
          ? `Cancelled the running turn of '${name}' (it ran on another instance).`
          : `Session '${name}' ended (status ${meta.status}) before the cancel reached it.`,
    };
  }

  /**
   * Hear cancels for turns running here while any does: on Redis the bus reads the shared stream only while
   * someone follows it, so an instance with no turn running pays nothing for this.
   */
  follow(): void {
    if (this.unsubscribe || this.services.store.kind !== 'redis') return;
    this.unsubscribe = this.services.bus.subscribe((event) => {
      if (event.type !== CANCEL_EVENT || typeof event.session !== 'string') return;
      this.turns
        .run(event.session)
        ?.controller.abort(
          new SwitchboardError('CANCELLED', 'Cancelled with agent__cancel (through another instance).'),
        );
    });
  }

  /** Stop hearing cancels once no turn runs here. */
  unfollow(): void {
    if (this.turns.runningCount > 0) return;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }
}
