// Tickets for the dashboard's event stream. A browser's EventSource cannot send an Authorization header, and a
// long-lived token in a URL ends up in logs and history; so the page trades its token for a ticket (POST
// /v1/ui/ticket, authenticated as usual) and opens the stream with it: random, single use, valid for 30 seconds,
// bound to the principal that asked (docs/decisions.md, "Dashboard") and to the token it asked with, so a ticket
// issued before that token was revoked opens nothing (the route checks, src/serve/dashboard/routes.ts).
// On a store shared by several instances (Redis) the ticket is kept there, so the stream may open on any instance:
// it stands for the caller's identity, profile and token hash (never a credential), from which the redeeming
// instance builds the principal as its own authentication would. Alone (SQLite), tickets stay in this process's
// memory.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Config } from '../../config/schema.ts';
import { PRINCIPAL_KINDS, type Principal } from '../../core/context.ts';
import { effectiveProfile, withProfile } from '../../core/profile.ts';
import { type Exposure, makePrincipal } from '../../policy/principal.ts';
import type { SharedTicketsPart } from '../../store/contract.ts';

export const TICKET_TTL_MS = 30_000;
/** A bound on outstanding tickets, so a caller asking in a loop cannot grow the map without end. */
const MAX_TICKETS = 10_000;

/**
 * What a shared ticket holds: who asked, as HTTP authentication identified them, the profile they ran under, and the
 * hash of the Switchboard token they asked with.
 */
const Holder = z.object({
  id: z.string().min(1),
  roles: z.array(z.string()),
  kind: z.enum(PRINCIPAL_KINDS),
  profile: z.string().optional(),
  token: z.string().optional(),
});

/** Who a ticket was issued to: the principal, and the token (by hash, `AuthResult.token`) it asked with, if any. */
export interface TicketHolder {
  principal: Principal;
  token?: string;
}

export interface TicketOptions {
  /** The store's shared tickets (`store.shared.tickets`); without them tickets live in this process. */
  shared?: SharedTicketsPart;
  /** How a redeeming instance builds the principal: the configuration now and `serve --only/--except`. */
  config: () => Config;
  exposure?: Exposure;
  /** How long a ticket stays valid (tests shorten it). */
  ttlMs?: number;
}

export class Tickets {
  private readonly open = new Map<string, { holder: TicketHolder; expires: number }>();
  private readonly ttlMs: number;

  constructor(private readonly options: TicketOptions) {
    this.ttlMs = options.ttlMs ?? TICKET_TTL_MS;
  }

  async issue(holder: TicketHolder, now = Date.now()): Promise<{ ticket: string; expiresInMs: number }> {
    const ticket = randomBytes(24).toString('base64url');
    const { shared } = this.options;
    if (shared) {
      const { principal, token } = holder;
      const value: z.input<typeof Holder> = {
        id: principal.id,
        roles: principal.roles,
        kind: principal.kind ?? 'token',
      };
      if (principal.profile) value.profile = principal.profile.name;
      if (token) value.token = token;
      await shared.put(ticket, JSON.stringify(value), this.ttlMs);
    } else {
      this.sweep(now);
      if (this.open.size >= MAX_TICKETS) this.open.delete(this.open.keys().next().value as string);
      this.open.set(ticket, { holder, expires: now + this.ttlMs });
    }
    return { ticket, expiresInMs: this.ttlMs };
  }

  /** Who a ticket was issued to, once: the ticket is spent by this call. */
  async redeem(ticket: string | null, now = Date.now()): Promise<TicketHolder | undefined> {
    if (!ticket) return undefined;
    if (this.options.shared) return this.rebuild(await this.options.shared.take(ticket));
    const entry = this.open.get(ticket);
    this.open.delete(ticket);
    return entry && entry.expires > now ? entry.holder : undefined;
  }

  /** The holder as authentication and profile selection make its principal (src/policy/auth.ts, profile-select.ts). */
  private rebuild(value: string | undefined): TicketHolder | undefined {
    if (value === undefined) return undefined;
    let parsed: z.infer<typeof Holder>;
    try {
      parsed = Holder.parse(JSON.parse(value));
    } catch {
      return undefined;
    }
    const { profile: name, token, ...who } = parsed;
    const config = this.options.config();
    const principal = makePrincipal(config, this.options.exposure, who);
    const holder = (p: Principal): TicketHolder => (token ? { principal: p, token } : { principal: p });
    if (name === undefined) return holder(principal);
    // A profile removed since the ticket was issued: refused, as a request bound to it would be.
    const profile = effectiveProfile(config, name);
    return profile ? holder(withProfile(principal, profile)) : undefined;
  }

  private sweep(now: number): void {
    for (const [ticket, { expires }] of this.open) if (expires <= now) this.open.delete(ticket);
  }
}
