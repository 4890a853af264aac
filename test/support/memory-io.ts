/**
 * @module test/support/memory-io
 * An in-memory CliIO for running commands in-process in tests.
 */
import type { CliIO } from '../../src/cli/io.js';

export interface MemoryIO extends CliIO {
  out: string;
  err: string;
}

export function memoryIO(stdin: string | Buffer = ''): MemoryIO {
  const io: MemoryIO = {
    out: '',
    err: '',
    async readStdin() {
      return Buffer.isBuffer(stdin) ? stdin : Buffer.from(stdin);
    },
    stdout(text: string) {
      io.out += text;
    },
    stderr(text: string) {
      io.err += text;
    },
  };
  return io;
}
