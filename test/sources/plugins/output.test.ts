// Hook output handling: bounded head-and-tail capture of a stream, the cut for a model, and line splitting.
import { describe, expect, it } from 'vitest';
import { capHeadTail, HeadTail, LineSplitter } from '../../../src/sources/plugins/output.ts';

describe('HeadTail', () => {
  it('keeps everything while it fits', () => {
    const c = new HeadTail(100);
    c.push('abc');
    c.push('def');
    expect(c.text()).toBe('abcdef');
  });

  it('keeps the head and the tail of a long stream in bounded memory and says how much it dropped', () => {
    const c = new HeadTail(1000);
    c.push('HEAD');
    for (let i = 0; i < 10_000; i++) c.push(`line ${i}\n`);
    c.push('TAIL');
    const text = c.text();
    expect(text.startsWith('HEAD')).toBe(true);
    expect(text.endsWith('TAIL')).toBe(true);
    expect(text.length).toBeLessThan(3100);
    const dropped = Number(/\[… ([\d,]+) characters cut …\]/.exec(text)?.[1].replaceAll(',', ''));
    const total = 4 + Array.from({ length: 10_000 }, (_, i) => `line ${i}\n`.length).reduce((a, b) => a + b, 0) + 4;
    expect(text.replace(/\n\[… [\d,]+ characters cut …\]\n/, '').length + dropped).toBe(total);
  });
});

describe('capHeadTail', () => {
  it('returns short text unchanged', () => {
    expect(capHeadTail('short', 100)).toBe('short');
  });

  it('keeps 40 % from the start and 60 % from the end with a note of what was cut', () => {
    const text = `${'a'.repeat(500)}${'b'.repeat(500)}`;
    const cut = capHeadTail(text, 100);
    expect(cut).toBe(`${'a'.repeat(40)}\n[… 900 characters cut from the middle of this output …]\n${'b'.repeat(60)}`);
  });
});

describe('LineSplitter', () => {
  it('emits whole lines across chunks and the last partial line on flush', () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l));
    s.push('one\ntw');
    s.push('o\r\nthr');
    expect(lines).toEqual(['one', 'two']);
    s.flush();
    expect(lines).toEqual(['one', 'two', 'thr']);
  });
});
