// From one registry `server.json` to one `[[servers]]` entry for this machine: the first package (in the
// publisher's order) whose runtime is on PATH — npm through `npx`, PyPI through `uvx`, an OCI image through
// docker or podman — else a remote URL; the version pinned; what the user must supply as `${VAR}` references.
// What cannot be run here is refused with the reason for each offer, never skipped in silence.
import type { Raw } from '../config/load.ts';
import { SERVER_NAME } from '../config/schema-servers.ts';
import type { RegistryPackage, RegistryRemote, ServerJson } from './schema.ts';
import { Values, type Variable } from './values.ts';

export const KINDS = ['npm', 'pypi', 'oci', 'remote'] as const;
export type Kind = (typeof KINDS)[number];

export interface PickOptions {
  /** The `[[servers]]` name to write. */
  name: string;
  /** Only this kind of offer (`--package`). */
  kind?: Kind;
  /** Whether a command is on this machine's PATH. */
  onPath: (command: string) => boolean;
}

export interface Picked {
  entry: Raw;
  /** What was picked, for people: `npm @scope/pkg@1.2.3 (npx)`. */
  summary: string;
  variables: Variable[];
  /** Things the user should know (dropped runtime arguments, a refused earlier offer). */
  notes: string[];
}

/** Why no entry could be written: one line per offer of the server. */
export class Refusal extends Error {
  constructor(
    message: string,
    readonly reasons: string[],
  ) {
    super(message);
  }
}

/** The default local name: the registry name's last segment, made a valid server name. */
export function localName(registryName: string): string {
  const last = registryName.slice(registryName.lastIndexOf('/') + 1);
  const name = last
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  return SERVER_NAME.test(name) ? name : 'server';
}

type Offer = { kind: string; label: string; build: () => Picked | string };

/** Pick and convert; throws {@link Refusal} when no offer of the server can be used here. */
export function pickEntry(server: ServerJson, opts: PickOptions): Picked {
  const offers: Offer[] = [
    ...(server.packages ?? []).map((p) => packageOffer(p, opts)),
    ...(server.remotes ?? []).map((r) => remoteOffer(r, opts.name)),
  ];
  const wanted = opts.kind ? offers.filter((o) => o.kind === opts.kind) : offers;
  const reasons: string[] = [];
  for (const offer of wanted) {
    const built = offer.build();
    if (typeof built !== 'string') {
      return { ...built, notes: [...reasons.map((r) => `not picked: ${r}`), ...built.notes] };
    }
    reasons.push(`${offer.label}: ${built}`);
  }
  if (offers.length === 0)
    throw new Refusal(
      `${server.name}@${server.version} lists no package and no remote: there is nothing to run or connect to.`,
      [],
    );
  if (wanted.length === 0)
    throw new Refusal(
      `${server.name}@${server.version} offers no ${opts.kind} package or remote; it offers: ${offers.map((o) => o.label).join(', ')}. Drop --package or pick one of those kinds.`,
      offers.map((o) => o.label),
    );
  throw new Refusal(
    `${server.name}@${server.version} cannot be set up on this machine:\n${reasons.map((r) => `  - ${r}`).join('\n')}`,
    reasons,
  );
}

const RUNTIMES: Record<string, string[]> = { npm: ['npx'], pypi: ['uvx'], oci: ['docker', 'podman'] };
const INSTALL: Record<string, string> = {
  npx: 'install Node.js (https://nodejs.org)',
  uvx: 'install uv (https://docs.astral.sh/uv/)',
  docker: 'install Docker or Podman',
};

/** An OCI reference pins a version when it has a tag or a digest (`image:1.2`, `image@sha256:…`). */
const hasTag = (image: string) => image.includes('@') || image.slice(image.lastIndexOf('/') + 1).includes(':');

function packageOffer(pkg: RegistryPackage, opts: PickOptions): Offer {
  const kind = pkg.registryType;
  // An OCI image and an MCPB file carry their version in the identifier.
  const label = `${kind} ${pkg.identifier}${pkg.version && kind !== 'oci' && kind !== 'mcpb' ? `@${pkg.version}` : ''}`;
  const build = (): Picked | string => {
    if (kind === 'mcpb')
      return 'an MCPB bundle is a file to download, check and unpack (a desktop client does that); Switchboard runs packages, not bundles';
    if (kind === 'nuget') return 'a NuGet package runs with .NET’s dnx, which Switchboard does not set up';
    const runtimes = RUNTIMES[kind];
    if (!runtimes) return `'${kind}' is not a package type Switchboard knows (npm, pypi, oci)`;
    if (pkg.transport.type !== 'stdio')
      return `it runs as a local ${pkg.transport.type} server (${pkg.transport.url}), and Switchboard starts stdio servers only; start it yourself and add its URL with switchboard mcp add NAME -u URL`;
    // The publisher's runtime hint first when it is one Switchboard knows for this type (podman before docker).
    const ordered = [...runtimes].sort((a, b) => Number(b === pkg.runtimeHint) - Number(a === pkg.runtimeHint));
    const runtime = ordered.find((r) => opts.onPath(r));
    if (!runtime) return `${runtimes.join(' or ')} is not on PATH (${INSTALL[runtimes[0]]})`;
    let image = pkg.identifier;
    if (kind === 'oci' && !hasTag(image)) {
      if (!pkg.version) return 'the image has no tag or digest and no version: nothing to pin';
      image = `${image}:${pkg.version}`;
    }
    if (kind !== 'oci' && !pkg.version) return 'no version to pin';
    const values = new Values(opts.name);
    const notes: string[] = [];
    // Runtime arguments are written for the hinted runtime; given to another they would be misread.
    const hintFits = pkg.runtimeHint === undefined || pkg.runtimeHint === runtime;
    const runtimeArgs = hintFits ? values.arguments(pkg.runtimeArguments) : [];
    if (!hintFits && pkg.runtimeArguments?.length)
      notes.push(`its runtime arguments are for ${pkg.runtimeHint}, not ${runtime}; they were left out`);
    const env: Record<string, string> = {};
    for (const v of pkg.environmentVariables ?? []) {
      const value = values.keyValue(v, 'env', v.name);
      if (value !== undefined) env[v.name] = value;
    }
    const packageArgs = values.arguments(pkg.packageArguments);
    const args =
      kind === 'npm'
        ? ['-y', ...runtimeArgs, `${pkg.identifier}@${pkg.version}`, ...packageArgs]
        : kind === 'pypi'
          ? [...runtimeArgs, `${pkg.identifier}@${pkg.version}`, ...packageArgs]
          : // A container sees only the variables named with -e; each takes its value from the runtime's environment.
            [
              'run',
              '-i',
              '--rm',
              ...Object.keys(env).flatMap((k) => ['-e', k]),
              ...runtimeArgs.filter((a, i, all) => !isBaseRunFlag(a, all[i - 1])),
              image,
              ...packageArgs,
            ];
    const entry: Raw = { name: opts.name, command: runtime, args };
    if (Object.keys(env).length) entry.env = env;
    entry.approval = 'manual';
    const pinned = kind === 'oci' ? image : `${pkg.identifier}@${pkg.version}`;
    return { entry, summary: `${kind} ${pinned} (${runtime})`, variables: values.variables, notes };
  };
  return { kind, label, build };
}

/** `run`, `-i` and `--rm` are written once by Switchboard; publishers often list them as runtime arguments too. */
const isBaseRunFlag = (arg: string, before: string | undefined) =>
  ['run', '-i', '--rm', '--interactive'].includes(arg) && before !== '-e' && before !== '--env';

function remoteOffer(remote: RegistryRemote, name: string): Offer {
  const label = `remote ${remote.type} ${remote.url}`;
  const build = (): Picked | string => {
    const values = new Values(name);
    const url = values.template(remote.url, remote.variables, 'url', true);
    if (!/^https?:\/\//.test(url) && !url.startsWith('${')) return `'${remote.url}' is not an http(s) URL`;
    const headers: Record<string, string> = {};
    for (const h of remote.headers ?? []) {
      const value = values.keyValue(h, `header ${h.name}`, values.label(h.name));
      if (value !== undefined) headers[h.name] = value;
    }
    const entry: Raw = { name, url };
    if (remote.type === 'sse') entry.transport = 'sse';
    if (Object.keys(headers).length) entry.headers = headers;
    entry.approval = 'manual';
    return {
      entry,
      summary: `remote ${remote.type === 'sse' ? 'sse' : 'streamable-http'} ${url}`,
      variables: values.variables,
      notes: [],
    };
  };
  return { kind: 'remote', label, build };
}
