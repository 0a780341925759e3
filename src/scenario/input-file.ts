// Reading a file a person named on the command line (a scenario, a reassignment JSON, a properties file): only a
// regular file, and only up to a size cap, so that `/dev/zero`, a FIFO or a multi-gigabyte file gives a clear
// error instead of a hang or an out-of-memory crash. The file is opened non-blocking (a FIFO without a writer
// would block open(2)), checked with fstat on the open descriptor (no race between check and read), and read
// to at most the cap plus one byte (files under /proc report size 0 and still have content).
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** The largest input file read (a reassignment of 100,000 partitions is about 6 MB of JSON). */
export const MAX_INPUT_FILE_BYTES = 16 * 1024 * 1024;

export class InputFileError extends Error {
  override name = 'InputFileError';
  constructor(
    message: string,
    /** The errno code when the system refused (ENOENT, EACCES...). */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** The file's text (UTF-8). Throws InputFileError saying what is wrong with it. */
export function readInputFile(path: string, maxBytes = MAX_INPUT_FILE_BYTES): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputFileError(
      code === 'ENOENT' ? 'no such file' : `cannot read the file (${code ?? (e as Error).message})`,
      code,
    );
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile())
      throw new InputFileError(
        `not a regular file (${stat.isDirectory() ? 'a directory' : 'a device, pipe or socket'})`,
      );
    if (stat.size > maxBytes)
      throw new InputFileError(`the file is ${stat.size} bytes, more than the ${maxBytes} allowed`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(1024 * 1024, maxBytes + 1 - total));
      if (chunk.length === 0) break;
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
    }
    if (total > maxBytes) throw new InputFileError(`the file is more than the ${maxBytes} bytes allowed`);
    return Buffer.concat(chunks).toString('utf8');
  } catch (e) {
    if (e instanceof InputFileError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputFileError(`cannot read the file (${code ?? (e as Error).message})`, code);
  } finally {
    closeSync(fd);
  }
}
