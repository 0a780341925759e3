// The project's vitest configuration with the data-plane invariants switched off (invariants-off.setup.ts), for
// scripts/invariants-suite-cost.sh only.
import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.ts';

export default defineConfig({
  ...base,
  test: { ...base.test, setupFiles: ['test/bench/invariants-off.setup.ts'] },
});
