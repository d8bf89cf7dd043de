import { describe, expect, it } from 'vitest';
import { type Route, RouteTable } from '../../src/serve/route-table.ts';

const route = (method: string, path: string): Route => ({ method, path, handle: () => {} });
const table = new RouteTable([
  route('ALL', '/mcp'),
  route('ALL', '/mcp/:profile'),
  route('GET', '/ui/*'),
  route('GET', '/v1/ui/events'),
  route('ALL', '/v1/ui/*'),
  route('POST', '/v1/tools/:name'),
  route('ALL', '/v1/tools/:name'),
]);
const matched = (method: string, path: string) => {
  const found = table.match(method, path);
  return found && { route: `${found.route.method} ${found.route.path}`, params: found.params };
};

describe('RouteTable', () => {
  it('answers the first route listed among those that match, with its parameters still encoded', () => {
    expect(matched('GET', '/v1/ui/events')).toEqual({ route: 'GET /v1/ui/events', params: {} });
    expect(matched('POST', '/v1/ui/events')).toEqual({ route: 'ALL /v1/ui/*', params: {} });
    expect(matched('POST', '/v1/tools/a%2Fb')).toEqual({ route: 'POST /v1/tools/:name', params: { name: 'a%2Fb' } });
    expect(matched('GET', '/v1/tools/echo')).toEqual({ route: 'ALL /v1/tools/:name', params: { name: 'echo' } });
    expect(matched('DELETE', '/mcp/dev')).toEqual({ route: 'ALL /mcp/:profile', params: { profile: 'dev' } });
  });

  it('matches paths as the old if-chain did: no trailing slash, no extra segment, HEAD only where listed', () => {
    for (const path of ['/mcp/', '//mcp', '/mcp/a/b', '/v1/tools/', '/v1/tools/x/', '/uix'])
      expect(matched('POST', path)).toBeUndefined();
    expect(matched('HEAD', '/ui/app.js')).toBeUndefined();
    expect(matched('GET', '/ui')?.route).toBe('GET /ui/*');
    expect(matched('GET', '/ui//x')?.route).toBe('GET /ui/*');
  });
});
