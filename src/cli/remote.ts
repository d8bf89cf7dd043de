// Talking to a running Switchboard with the official MCP client (for `tools ... --url`).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { version } from '../version.ts';

/** Connect to `url` (the /mcp endpoint or the server's base URL), negotiating the newest protocol both speak. */
export async function connectRemote(url: string, token = process.env.SWITCHBOARD_TOKEN): Promise<Client> {
  const endpoint = new URL(url);
  if (!endpoint.pathname.endsWith('/mcp')) endpoint.pathname = `${endpoint.pathname.replace(/\/$/, '')}/mcp`;
  const client = new Client({ name: 'switchboard-cli', version }, { versionNegotiation: { mode: 'auto' } });
  const requestInit = token ? { headers: { authorization: `Bearer ${token}` } } : undefined;
  await client.connect(new StreamableHTTPClientTransport(endpoint, requestInit ? { requestInit } : undefined));
  return client;
}
