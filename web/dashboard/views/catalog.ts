// Catalog: every tool this principal may call (GET /v1/tools), grouped by source domain, searchable by name, title
// and description; a tool's schema; and, for admins, a form generated from its input schema that calls it through
// the pipeline (POST /v1/tools/NAME: validated, limited and audited like any call).
import { useMemo, useState } from 'preact/hooks';
import { call, request, type Session } from '../api.ts';
import { useData, useReloadOn } from '../data.ts';
import { html } from '../html.ts';
import { ErrorLine, Json, Loading } from '../parts.ts';

interface Tool {
  name: string;
  capability: string;
  title?: string;
  description?: string;
  inputSchema: { properties?: Record<string, any>; required?: string[] };
  annotations?: Record<string, unknown>;
}

/** The domain a tool comes from: `task`, `system`, an upstream server's, a plugin's. */
const domainOf = (t: Tool) => t.capability.split('.').slice(0, -1).join('.') || t.capability;

/** A form value as the schema's type wants it; complex types are typed as JSON. */
function fieldValue(schema: any, raw: FormDataEntryValue | null, checked: boolean): unknown {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'boolean') return checked;
  const text = String(raw ?? '');
  if (text === '') return undefined;
  if (type === 'number' || type === 'integer') return Number(text);
  if (type === 'string' || schema.enum) return text;
  return JSON.parse(text);
}

function Field({ name, schema, required }: { name: string; schema: any; required: boolean }) {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const label = html`<span>${name}${required ? ' *' : ''} <span class="muted">${schema.description ?? ''}</span></span>`;
  if (schema.enum)
    return html`<label>${label}<select name=${name}>
      ${required ? null : html`<option value="">—</option>`}
      ${schema.enum.map((v: string) => html`<option selected=${v === schema.default}>${v}</option>`)}
    </select></label>`;
  if (type === 'boolean')
    return html`<label class="check"><input type="checkbox" name=${name} checked=${schema.default === true} /> ${label}</label>`;
  if (type === 'number' || type === 'integer')
    return html`<label>${label}<input type="number" name=${name} step=${type === 'integer' ? 1 : 'any'} min=${schema.minimum} max=${schema.maximum} placeholder=${schema.default ?? ''} /></label>`;
  if (type === 'string')
    return html`<label>${label}<input name=${name} required=${required} placeholder=${schema.default ?? ''} /></label>`;
  return html`<label>${label}<textarea name=${name} rows="3" placeholder="JSON"></textarea></label>`;
}

function CallForm({ tool }: { tool: Tool }) {
  const [result, setResult] = useState<{ ok: boolean; value: unknown } | undefined>(undefined);
  const props = tool.inputSchema.properties ?? {};
  const required = new Set(tool.inputSchema.required ?? []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const data = new FormData(form);
    const input: Record<string, unknown> = {};
    try {
      for (const [name, schema] of Object.entries(props)) {
        const box = form.elements.namedItem(name) as HTMLInputElement | null;
        const v = fieldValue(schema, data.get(name), box?.checked ?? false);
        if (v !== undefined) input[name] = v;
      }
    } catch (err) {
      return setResult({ ok: false, value: `A JSON field is not valid JSON: ${(err as Error).message}` });
    }
    try {
      setResult({ ok: true, value: await call(tool.capability, input) });
    } catch (err) {
      setResult({ ok: false, value: (err as Error).message });
    }
  };
  return html`<form class="tool-form" onSubmit=${submit} data-tool=${tool.name}>
    ${Object.entries(props).map(([name, schema]) => html`<${Field} name=${name} schema=${schema} required=${required.has(name)} />`)}
    <button type="submit">Call ${tool.name}</button>
    ${result ? html`<div class=${result.ok ? 'result' : 'result error'}><${Json} value=${result.value} /></div>` : null}
  </form>`;
}

export function Catalog({ session, route }: { session: Session; route: string[] }) {
  const tools = useData(() => request<{ tools: Tool[] }>('GET', '/v1/tools'));
  useReloadOn(['registry.changed'], tools.reload, 500);
  const [query, setQuery] = useState('');
  const groups = useMemo(() => {
    const q = query.trim().toLowerCase();
    const shown = (tools.data?.tools ?? []).filter(
      (t) => !q || `${t.name} ${t.title ?? ''} ${t.description ?? ''}`.toLowerCase().includes(q),
    );
    const by = new Map<string, Tool[]>();
    for (const t of shown) by.set(domainOf(t), [...(by.get(domainOf(t)) ?? []), t]);
    return [...by.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [tools.data, query]);
  const selected = tools.data?.tools.find((t) => t.name === route[0]);
  return html`<h1>Catalog</h1>
    <${ErrorLine} error=${tools.error} />
    <div class="split">
      <div>
        <input type="search" class="search" placeholder="Search tools" aria-label="Search tools" value=${query} onInput=${(e: Event) => setQuery((e.target as HTMLInputElement).value)} />
        ${tools.data ? null : html`<${Loading} />`}
        ${groups.map(
          ([domain, list]) => html`<section class="group">
            <h2>${domain} <span class="muted">${list.length}</span></h2>
            <ul class="plain">${list.map((t) => html`<li><a href=${`#/catalog/${t.name}`} data-tool=${t.name} class=${t === selected ? 'active' : ''}>${t.name}</a></li>`)}</ul>
          </section>`,
        )}
      </div>
      ${
        selected
          ? html`<section class="panel" data-tool=${selected.name}>
              <h2>${selected.title ?? selected.name} <code>${selected.name}</code></h2>
              <p>${selected.description}</p>
              <h3>Input schema</h3>
              <${Json} value=${selected.inputSchema} />
              ${session.admin ? html`<h3>Call it</h3><${CallForm} key=${selected.name} tool=${selected} />` : null}
            </section>`
          : html`<p class="muted">Pick a tool to see its schema${session.admin ? ' and call it' : ''}.</p>`
      }
    </div>`;
}
