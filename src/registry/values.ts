// Values a registry entry asks for, turned into `[[servers]]` strings: publisher-fixed values stay literal, what the
// user must supply becomes a `${VAR}` reference (expanded when the server connects), and every reference is
// recorded so the add message can say what to set. No secret is ever written: the registry has none to give.
import type { Input, KeyValueInput, RegistryArgument } from './schema.ts';

/** One variable the written entry refers to. */
export interface Variable {
  /** The environment variable to set. */
  name: string;
  description?: string;
  secret: boolean;
  /** Without it the server fails to connect; an optional one has a default or can be left out. */
  required: boolean;
  default?: string;
  /** Where it is used: `env`, `header Authorization`, `url`, `argument --port`. */
  where: string;
}

/** An environment variable name made of a registry label: `api-key` → `API_KEY`, `{tenant.id}` → `TENANT_ID`. */
export function envName(label: string): string {
  const name = label
    .replace(/^-+/, '')
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
  return /^[0-9]/.test(name) ? `_${name}` : name || 'VALUE';
}

/** A `${VAR}` reference, with the registry's default as `${VAR:-default}` so it works unset. */
const reference = (name: string, fallback?: string) =>
  fallback === undefined ? `\${${name}}` : `\${${name}:-${fallback.replace(/}/g, '')}}`;

/** Collects the variables of one entry while its strings are built. */
export class Values {
  readonly variables: Variable[] = [];

  /**
   * `prefix` (the local server name) goes before names made of registry labels (`{api_key}` of server `tickets` →
   * `TICKETS_API_KEY`): labels are local to one server, the environment is shared by all of them. A package's own
   * environment variable names are kept as published.
   */
  constructor(private readonly prefix = '') {}

  /** The variable name for a registry label. */
  label(key: string): string {
    const name = envName(key);
    const p = this.prefix ? envName(this.prefix) : '';
    return p && name !== p && !name.startsWith(`${p}_`) ? `${p}_${name}` : name;
  }

  private note(v: Variable): void {
    const seen = this.variables.find((x) => x.name === v.name);
    if (!seen) this.variables.push(v);
    else seen.required ||= v.required;
  }

  /** A reference to `name` for an input with no fixed value, recorded. */
  ref(name: string, input: Input, where: string): string {
    const required = input.isRequired === true && input.default === undefined;
    this.note({
      name,
      secret: input.isSecret === true,
      required,
      where,
      ...(input.description ? { description: input.description } : {}),
      ...(input.default !== undefined ? { default: input.default } : {}),
    });
    return reference(name, input.default ?? (required ? undefined : ''));
  }

  /**
   * A value with `{curly}` parts replaced: a variable with a fixed value by that value, any other by a `${VAR}`
   * reference. A name not among `variables` stays as written (the schema's rule) unless `unknownToo` (a URL, whose
   * braces name environment variables or arguments and cannot stay in a URL).
   */
  template(value: string, variables: Record<string, Input> | undefined, where: string, unknownToo = false): string {
    return value.replace(/\{([A-Za-z0-9_.-]+)\}/g, (whole, key: string) => {
      const input = variables?.[key];
      if (input?.value !== undefined) return input.value;
      if (input) return this.ref(this.label(key), input, where);
      return unknownToo ? this.ref(this.label(key), { isRequired: true }, where) : whole;
    });
  }

  /** An environment variable or header's value; undefined when it is optional and has nothing to write. */
  keyValue(input: KeyValueInput, where: string, refName: string): string | undefined {
    if (input.value !== undefined) return this.template(input.value, input.variables, where);
    if (input.isRequired || input.default !== undefined) return this.ref(refName, input, where);
    this.note({
      name: refName,
      secret: input.isSecret === true,
      required: false,
      where: `${where} (not written; add it to the entry to use it)`,
      ...(input.description ? { description: input.description } : {}),
    });
    return undefined;
  }

  /** A list of registry arguments as command-line words; optional ones without a value are left out. */
  arguments(list: RegistryArgument[] | undefined): string[] {
    const out: string[] = [];
    for (const arg of list ?? []) {
      if (arg.type === 'positional') {
        const label = arg.valueHint ?? 'argument';
        if (arg.value !== undefined) out.push(this.template(arg.value, arg.variables, `argument ${label}`));
        else if (arg.isRequired)
          out.push(arg.default ?? this.ref(this.label(label), { ...arg, default: undefined }, `argument ${label}`));
        continue;
      }
      const where = `argument ${arg.name}`;
      if (arg.value !== undefined) out.push(arg.name, this.template(arg.value, arg.variables, where));
      else if (arg.isRequired && arg.format === 'boolean') out.push(arg.name);
      else if (arg.isRequired)
        out.push(arg.name, arg.default ?? this.ref(this.label(arg.name), { ...arg, default: undefined }, where));
    }
    return out;
  }
}
