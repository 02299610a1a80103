/**
 * The analytics page's daily chart, drawn by uPlot (imported here only, so it loads with this
 * page's chunk). The canvas is hidden from screen readers: the figure's text alternative is a
 * visually hidden table of the same numbers, beside it. uPlot's few styles are in
 * styles/components.css (block "analytics"), since a CSS file imported here would not be loaded.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface DailySeries {
  label: string;
  values: number[];
  /** A token name, e.g. --color-primary. */
  color: string;
}

const HEIGHT = 220;

export function DailyChart({ days, series }: { days: string[]; series: DailySeries[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const style = getComputedStyle(document.documentElement);
    const token = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
    const axis = { stroke: token('--color-muted', '#555'), grid: { stroke: token('--color-border', '#ddd'), width: 1 }, ticks: { show: false } };
    const x = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
    const chart = new uPlot(
      {
        width: Math.max(element.clientWidth, 200),
        height: HEIGHT,
        legend: { show: false },
        cursor: { show: false, drag: { x: false, y: false } },
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: { y: { range: (_u, _min, max) => [0, Math.max(max, 1)] } },
        axes: [axis, { ...axis, size: 40, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000] }],
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: token(s.color, '#1f5fbf'), width: 2, points: { show: days.length <= 31 } }))],
      },
      [x, ...series.map((s) => s.values)],
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 200), height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [days, series]);
  return <div class="analytics-chart" ref={box} aria-hidden="true" />;
}
