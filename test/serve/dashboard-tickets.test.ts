// Event-stream tickets: single use, short-lived, bound to the principal that asked.
import { describe, expect, it } from 'vitest';
import { TICKET_TTL_MS, Tickets } from '../../src/serve/dashboard/tickets.ts';

const ops = { id: 'ops', roles: ['admin'] };

describe('dashboard tickets', () => {
  it('redeem once, for the principal that asked', () => {
    const tickets = new Tickets();
    const { ticket } = tickets.issue(ops, 1000);
    expect(tickets.redeem(ticket, 1001)).toBe(ops);
    expect(tickets.redeem(ticket, 1002)).toBeUndefined();
  });

  it('expire after their lifetime, and unknown or missing tickets redeem nothing', () => {
    const tickets = new Tickets();
    const { ticket } = tickets.issue(ops, 1000);
    expect(tickets.redeem(ticket, 1000 + TICKET_TTL_MS)).toBeUndefined();
    expect(tickets.redeem('made-up', 1000)).toBeUndefined();
    expect(tickets.redeem(null, 1000)).toBeUndefined();
  });
});
