// A short name for a --set/--grid path in table headers and chart axes: its last key (`topics.0.partitions` ->
// partitions), or, under a map of Kafka settings (`config`, `configs`), the whole setting name, dots included
// (`clients.producers.0.config.linger.ms` -> linger.ms), as --set reads such paths.
const SETTINGS_MAPS = new Set(['config', 'configs']);

export function pathLabel(path: string): string {
  // Segments: `["quoted.key"]`, `[3]`, or plain keys between dots.
  const segments: { text: string; index: boolean }[] = [];
  for (const m of path.matchAll(/\[\s*["']([^"']+)["']\s*\]|\[(\d+)\]|([^.[\]]+)/g)) {
    if (m[1] !== undefined) segments.push({ text: m[1], index: false });
    else if (m[2] !== undefined) segments.push({ text: m[2], index: true });
    else segments.push({ text: m[3]!, index: /^\d+$/.test(m[3]!) });
  }
  const at = segments.findIndex((s, i) => SETTINGS_MAPS.has(s.text) && i < segments.length - 1);
  if (at >= 0)
    return segments
      .slice(at + 1)
      .map((s) => s.text)
      .join('.');
  const named = segments.filter((s) => !s.index);
  return named[named.length - 1]?.text ?? path;
}
