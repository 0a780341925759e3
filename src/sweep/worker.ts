// The piscina worker of a sweep: piscina calls the default export once per task (one run of a cell with a seed).
import { runCell } from './run-cell.ts';

export default runCell;
