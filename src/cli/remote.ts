// Talking to a running Switchboard with the official MCP client (`tools … --url`, `stats`).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { version } from '../version.ts';
import { remoteFailure, remoteToken } from './remote-errors.ts';

/**
 * Connect to `url` (the /mcp endpoint or the server's base URL), negotiating the newest protocol both speak, with
 * `--token` or $SWITCHBOARD_TOKEN.
 */
export async function connectRemote(url: string, givenToken?: string): Promise<Client> {
  const token = remoteToken(givenToken);
  const endpoint = new URL(url);
  if (!endpoint.pathname.endsWith('/mcp')) endpoint.pathname = `${endpoint.pathname.replace(/\/$/, '')}/mcp`;
  const client = new Client({ name: 'switchboard-cli', version }, { versionNegotiation: { mode: 'auto' } });
  const requestInit = token ? { headers: { authorization: `Bearer ${token}` } } : undefined;
  try {
    await client.connect(new StreamableHTTPClientTransport(endpoint, requestInit ? { requestInit } : undefined));
  } catch (err) {
    throw remoteFailure(endpoint, err, token !== undefined);
  }
  return client;
}
