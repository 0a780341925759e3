// README.md and the pages under docs/ and examples/ keep their promises: every relative link (and image) points at a
// file of the repository, every #anchor at a heading of the page it names, every docs page has a contents list,
// and every command they show exists: `kafkasim <command>` is a command of the CLI and each of its `--options`
// appears in that command's --help, a shipped scenario named by bare name is shipped, `npm run <script>` is a
// script of package.json, a file they name under scripts/ test/ scenarios/ examples/ models/ src/ ui/ tools/ schema/
// is there, and each --option given to a scripts/ file is named in that script's source.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.ts';
import { commands, main } from '../../src/cli/main.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

const DOCS = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
const EXAMPLE_READMES = ['examples/README.md'];
const PAGES = ['README.md', ...DOCS, ...EXAMPLE_READMES];

/** The page without its fenced code blocks (links there are text, not links). */
const prose = (md: string) => md.replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, ... */
function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(md).matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const text = m[1]!.replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every `[text](target)` and `![alt](target)` outside code, with the line it is on. */
function links(md: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  const text = prose(md).replace(/`[^`\n]*`/g, (s) => ' '.repeat(s.length));
  for (const m of text.matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
    out.push({ target: m[1]!, line: text.slice(0, m.index).split('\n').length });
  }
  return out;
}

describe('README and docs: links', () => {
  it.each(PAGES)('%s: every relative link resolves, every #anchor names a heading', (page) => {
    const md = read(page);
    const broken: string[] = [];
    for (const { target, line } of links(md)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? page : relative(ROOT, join(ROOT, dirname(page), decodeURIComponent(path)));
      if (file.startsWith('..') || !existsSync(join(ROOT, file))) {
        broken.push(`${page}:${line}: ${target}: no file ${file}`);
        continue;
      }
      if (anchor !== undefined && file.endsWith('.md') && !anchors(read(file)).has(anchor))
        broken.push(`${page}:${line}: ${target}: ${file} has no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });

  it.each(DOCS)('%s has a contents list linking its own sections', (page) => {
    const md = read(page);
    const own = anchors(md);
    const listed = links(md).filter((l) => l.target.startsWith('#') && own.has(l.target.slice(1)));
    expect(/^#* *Contents\b/im.test(md) || /^Contents\b/m.test(md), `${page} has no "Contents"`).toBe(true);
    expect(listed.length, `${page}: the contents list links no section`).toBeGreaterThanOrEqual(2);
  });

  it('README links every docs page (the front door names the whole house)', () => {
    const linked = new Set(links(read('README.md')).map((l) => l.target.split('#')[0]));
    expect(DOCS.filter((d) => !linked.has(d))).toEqual([]);
  });

  // Reference, not a development log: a heading names what a section describes, never a round of work or a to-do.
  it.each(PAGES)('%s: no heading is a round of work, a to-do or a before/after', (page) => {
    const log = [...prose(read(page)).matchAll(/^#{1,6} +(.+)$/gm)]
      .map((m) => m[1]!)
      .filter((h) =>
        /\b(first|second|third|next|last) round\b|\bnot done\b|\bto-?do\b|what changed|before and after/i.test(
          h,
        ),
      );
    expect(log).toEqual([]);
  });

  it('the anchor rule is GitHub’s (repeats, punctuation, code spans)', () => {
    expect([...anchors("# A\n## The run's fingerprint\n## `models/sim` kernel\n## A\n")]).toEqual([
      'a',
      'the-runs-fingerprint',
      'modelssim-kernel',
      'a-1',
    ]);
  });
});

/** Shell lines of the pages: fenced sh/bash/console blocks (continuations joined) and inline code spans. */
function shellLines(md: string): string[] {
  const out: string[] = [];
  for (const m of md.matchAll(/^```(?:sh|bash|shell|console)?\n([\s\S]*?)^```/gm))
    out.push(...m[1]!.replace(/\\\n/g, ' ').split('\n'));
  for (const m of prose(md).matchAll(/`([^`\n]+)`/g)) out.push(m[1]!);
  return out.map((l) => l.replace(/(^|\s)#.*$/, '').trim()).filter((l) => l !== '');
}

const shipped = new Set(
  readdirSync(join(ROOT, 'scenarios'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -'.yaml'.length)),
);
const scripts = Object.keys(
  (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts,
);

/** A command's --help; `ui` takes every serve option too, as its help says. */
async function helpOf(command: string): Promise<string> {
  const io = bufferIO();
  expect(await main([command, '--help'], io), `kafkasim ${command} --help`).toBe(0);
  return command === 'ui' ? io.text() + (await helpOf('serve')) : io.text();
}

describe('README and docs: the commands they show exist', () => {
  it('kafkasim commands, their options, shipped scenario names, npm scripts and script files', async () => {
    const wrong: string[] = [];
    const helps = new Map<string, string>();
    let checked = 0;
    for (const page of PAGES) {
      for (const line of shellLines(read(page))) {
        for (const m of line.matchAll(/(?:^|[\s;&|(])(?:npx )?kafkasim ((?:[a-z][\w-]*)(?: [^;&|)]*)?)/g)) {
          const [command, ...args] = m[1]!.split(/\s+/);
          if (command === 'help') continue;
          if (!commands[command!]) {
            wrong.push(`${page}: \`kafkasim ${m[1]}\`: no command '${command}'`);
            continue;
          }
          checked++;
          if (!helps.has(command!)) helps.set(command!, await helpOf(command!));
          for (const flag of args.filter((a) => /^--[a-z]/.test(a)).map((a) => a.split('=')[0]!)) {
            if (!helps.get(command!)!.includes(flag))
              wrong.push(`${page}: \`kafkasim ${command} ... ${flag}\`: not in its --help`);
          }
          const target = args[0];
          if (
            ['run', 'ui', 'sweep', 'validate'].includes(command!) &&
            target !== undefined &&
            /^[a-z0-9]+(-[a-z0-9]+)+$/.test(target) &&
            !shipped.has(target)
          )
            wrong.push(`${page}: \`kafkasim ${command} ${target}\`: no shipped scenario '${target}'`);
        }
        for (const m of line.matchAll(/npm run ([\w:-]+)/g))
          if (!scripts.includes(m[1]!))
            wrong.push(`${page}: \`npm run ${m[1]}\`: no such script in package.json`);
        for (const m of line.matchAll(
          /(?:^|[\s=(])((?:scripts|test|scenarios|examples|models|src|ui|tools|schema)\/[\w./-]+\.\w+)/g,
        )) {
          const file = m[1]!;
          const here = existsSync(join(ROOT, file)) && statSync(join(ROOT, file)).isFile();
          if (!here && !file.includes('*')) wrong.push(`${page}: '${file}' does not exist`);
        }
        // A script's --options (up to the end of its command) are options it reads: its source names each one.
        for (const m of line.matchAll(/(?:^|\s)(scripts\/[\w.-]+\.(?:ts|mjs|sh))((?: [^;&|]*)?)/g)) {
          const file = join(ROOT, m[1]!);
          if (!existsSync(file)) continue;
          const source = readFileSync(file, 'utf8');
          for (const flag of (m[2] ?? '').split(/\s+/).filter((a) => /^--[a-z]/.test(a)))
            if (!source.includes(flag.split('=')[0]!.slice(2)))
              wrong.push(`${page}: \`${m[1]} ... ${flag}\`: the script does not read ${flag.split('=')[0]}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(checked, 'the pages show kafkasim commands').toBeGreaterThan(50);
  }, 60_000);
});
