// A chart of a report: an echarts option (plain JSON, so it can be embedded in the page as data), or the reason it
// was left out. Option values that must be functions in the browser are named by a string the page maps to a
// function (see html-page.ts): `renderItem: 'gantt'`, `tooltip.formatter: 'detail'`, `'detail:<unit>'` or `'band'`.

export type EchartsOption = Record<string, unknown>;

export type ChartSpec =
  | { id: string; title: string; note?: string; height: number; option: EchartsOption }
  | { id: string; title: string; omitted: string };

export function omitted(id: string, title: string, why: string): ChartSpec {
  return { id, title, omitted: why };
}

/** A colour per broker (stable across charts of one report): echarts' default palette, by broker position. */
export const PALETTE = [
  '#5470c6',
  '#91cc75',
  '#fac858',
  '#ee6666',
  '#73c0de',
  '#3ba272',
  '#fc8452',
  '#9a60b4',
  '#ea7ccc',
  '#2f4554',
  '#61a0a8',
  '#d48265',
];

export const NO_LEADER_COLOR = '#c8c8c8';
export const ERROR_COLOR = '#d62728';
