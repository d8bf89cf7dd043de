// Tickets for the dashboard's event stream. A browser's EventSource cannot send an Authorization header, and a
// long-lived token in a URL ends up in logs and history; so the page trades its token for a ticket (POST
// /v1/ui/ticket, authenticated as usual) and opens the stream with it: random, single use, valid for 30 seconds,
// bound to the principal that asked (docs/decisions.md, "Dashboard").
import { randomBytes } from 'node:crypto';
import type { Principal } from '../../core/context.ts';

export const TICKET_TTL_MS = 30_000;
/** A bound on outstanding tickets, so a caller asking in a loop cannot grow the map without end. */
const MAX_TICKETS = 10_000;

export class Tickets {
  private readonly open = new Map<string, { principal: Principal; expires: number }>();

  issue(principal: Principal, now = Date.now()): { ticket: string; expiresInMs: number } {
    this.sweep(now);
    if (this.open.size >= MAX_TICKETS) this.open.delete(this.open.keys().next().value as string);
    const ticket = randomBytes(24).toString('base64url');
    this.open.set(ticket, { principal, expires: now + TICKET_TTL_MS });
    return { ticket, expiresInMs: TICKET_TTL_MS };
  }

  /** The principal a ticket was issued to, once: the ticket is spent by this call. */
  redeem(ticket: string | null, now = Date.now()): Principal | undefined {
    if (!ticket) return undefined;
    const entry = this.open.get(ticket);
    this.open.delete(ticket);
    return entry && entry.expires > now ? entry.principal : undefined;
  }

  private sweep(now: number): void {
    for (const [ticket, { expires }] of this.open) if (expires <= now) this.open.delete(ticket);
  }
}
