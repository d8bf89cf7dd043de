// A time-series chart (uPlot: ~20 KB compressed, canvas, fast with thousands of points), sized to its container.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { html } from './html.ts';

export interface Line {
  label: string;
  color: string;
}

/** `data[0]` is time in seconds, then one array per line. */
export function Chart({ title, lines, data, unit }: { title: string; lines: Line[]; data: number[][]; unit: string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  useEffect(() => {
    const el = box.current as HTMLDivElement;
    plot.current = new uPlot(
      {
        width: el.clientWidth || 300,
        height: 160,
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
        scales: { y: { range: (_u, _min, max) => [0, Math.max(max, 1)] } },
        axes: [
          { stroke: 'currentColor' },
          { stroke: 'currentColor', size: 60, values: (_u, v) => v.map((x) => `${x}${unit}`) },
        ],
        series: [{}, ...lines.map((l) => ({ label: l.label, stroke: l.color, width: 1.5, points: { show: false } }))],
      },
      data as uPlot.AlignedData,
      el,
    );
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height: 160 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
    };
  }, []);
  useEffect(() => plot.current?.setData(data as uPlot.AlignedData), [data]);
  return html`<figure class="chart"><figcaption>${title}</figcaption><div ref=${box}></div></figure>`;
}
