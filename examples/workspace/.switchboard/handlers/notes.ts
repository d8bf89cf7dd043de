// A demo handler module: a tiny notes domain and a text utility, written the way a user would.
// Capabilities are plain exports; Switchboard loads every *.ts / *.js / *.mjs file in this folder.
import { defineCapability, defineResource, z } from 'switchboard-mcp';

const notes: { id: number; text: string; tags: string[]; at: string }[] = [];

export const add = defineCapability({
  name: 'notes.add',
  title: 'Add a note',
  description: 'Save a short note with optional tags. Returns the note with its id.',
  input: z.object({
    text: z.string().min(1).max(2000).describe('The note text'),
    tags: z.array(z.string().min(1).max(40)).max(10).default([]).describe('Optional tags'),
  }),
  output: z.object({ id: z.number().int(), text: z.string(), tags: z.array(z.string()), at: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handle: ({ text, tags }) => {
    const note = { id: notes.length + 1, text, tags, at: new Date().toISOString() };
    notes.push(note);
    return note;
  },
});

export const search = defineCapability({
  name: 'notes.search',
  title: 'Search notes',
  description: 'Find notes whose text contains the query (case-insensitive), optionally only with a tag.',
  input: z.object({ query: z.string().default(''), tag: z.string().optional() }),
  output: z.object({
    notes: z.array(z.object({ id: z.number(), text: z.string(), tags: z.array(z.string()), at: z.string() })),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  handle: ({ query, tag }) => ({
    notes: notes.filter((n) => n.text.toLowerCase().includes(query.toLowerCase()) && (!tag || n.tags.includes(tag))),
  }),
});

export const wordCount = defineCapability({
  name: 'text.word_count',
  title: 'Count words',
  description: 'Count the words, lines and characters of a text.',
  input: z.object({ text: z.string() }),
  output: z.object({ words: z.number().int(), lines: z.number().int(), characters: z.number().int() }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handle: ({ text }) => ({
    words: text.split(/\s+/).filter(Boolean).length,
    lines: text === '' ? 0 : text.split('\n').length,
    characters: [...text].length,
  }),
});

export const notesResource = defineResource({
  uri: 'notes://all',
  name: 'notes',
  title: 'All notes',
  description: 'Every note saved with notes.add, as JSON.',
  mimeType: 'application/json',
  read: () => [{ uri: 'notes://all', mimeType: 'application/json', text: JSON.stringify(notes, null, 2) }],
});
