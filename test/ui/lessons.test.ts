// The lessons' "what to watch" hints (ui/src/lessons.ts): every step of every shipped scenario has one, every kind
// of step the scenario language has is covered (a new step action without a hint fails here), and each shipped
// lesson's own hints point at steps its scenario has.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../src/scenario/load.ts';
import { actionOf, STEP_ACTIONS } from '../../src/scenario/steps/index.ts';
import { BY_LESSON, hintFor } from '../../ui/src/lessons.ts';

const SCENARIOS = fileURLToPath(new URL('../../scenarios/', import.meta.url));

function lessonOf(name: string) {
  const loaded = loadScenarioFile(`${SCENARIOS}${name}.yaml`);
  return loaded.spec.timeline.map((s) => ({ action: actionOf(s) as string }));
}

describe('lesson hints', () => {
  it('every step action has its own hint', () => {
    for (const action of STEP_ACTIONS) {
      const hint = hintFor({ scenario: 'any.yaml', steps: [{ action }], next: 1 });
      expect(hint, action).not.toBe('');
    }
  });

  it("a shipped lesson's step gets its own hint, other steps their action's, and before the first the overview", () => {
    const steps = lessonOf('broker-failure-rf3');
    const at = (next: number) => hintFor({ scenario: 'broker-failure-rf3.yaml', steps, next });
    expect(at(0)).toBe(BY_LESSON['broker-failure-rf3']!['*']);
    expect(at(2)).toBe(BY_LESSON['broker-failure-rf3']!['1']);
    expect(steps[6]!.action).toBe('waitUntil');
    expect(at(7)).toMatch(/The lesson waits for a condition/);
    expect(new Set(steps.map((_, i) => at(i + 1))).size).toBeGreaterThan(3);
  });

  it("each shipped lesson's hints name steps its scenario has, and every step of every scenario has a hint", () => {
    for (const [name, hints] of Object.entries(BY_LESSON)) {
      const steps = lessonOf(name);
      for (const key of Object.keys(hints))
        if (key !== '*') expect(Number(key), `${name} step ${key}`).toBeLessThan(steps.length);
    }
    for (const file of readdirSync(SCENARIOS).filter((f) => f.endsWith('.yaml'))) {
      const name = file.replace(/\.yaml$/, '');
      const steps = lessonOf(name);
      steps.forEach((_, i) => {
        expect(hintFor({ scenario: file, steps, next: i + 1 }), `${file} step ${i}`).not.toBe('');
      });
    }
  });
});
