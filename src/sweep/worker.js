// The piscina worker of a sweep. Worker threads start plain Node (they do not inherit a loader registered in the
// main thread, nor vitest's transform), so this entry registers tsx's loader in its own thread, as bin/kafkasim.js
// does for the command, and then loads the TypeScript cell runner. piscina calls the default export per task.
import { register } from 'tsx/esm/api';

register();
const { runCell } = await import('./run-cell.ts');

export default runCell;
