// The sweep worker when kafkasim runs from its TypeScript sources (vitest, `tsx`): worker threads start plain Node,
// without the loader of the thread that made them, so this entry registers tsx's loader in its own thread and then
// loads worker.ts. The build never uses this file: dist/ has worker.js, compiled from worker.ts.
import { register } from 'tsx/esm/api';

register();
const { default: runCell } = await import('./worker.ts');

export default runCell;
