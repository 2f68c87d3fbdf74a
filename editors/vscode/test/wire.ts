// The extension's bundle loaded as VS Code loads it, with the stand-in for the `vscode`
// module (vscode-mock.ts), and the server processes it spawns recorded: their command
// lines and the messages on their stdio. Importing this module installs the hook.

import type { ChildProcess } from 'node:child_process';
import Module from 'node:module';
import * as mock from './vscode-mock';

export interface Message {
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
}

/** The command lines spawned, the messages the client wrote to the server and those
 * the server wrote to the client. */
export const wire = { spawned: [] as string[][], toServer: Buffer.alloc(0), toClient: Buffer.alloc(0) };

/** The LSP messages in a stream's bytes. */
export function messages(bytes: Buffer): Message[] {
  const out: Message[] = [];
  let at = 0;
  for (;;) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end < 0) {
      return out;
    }
    const length = Number(/Content-Length: (\d+)/i.exec(bytes.subarray(at, end).toString())?.[1]);
    const body = bytes.subarray(end + 4, end + 4 + length);
    if (body.length < length) {
      return out;
    }
    out.push(JSON.parse(body.toString()) as Message);
    at = end + 4 + length;
  }
}

// `vscode` is the stand-in; the servers the client spawns are recorded.
const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
const load = loader._load;
loader._load = function (this: unknown, request: string, ...rest: unknown[]) {
  if (request === 'vscode') {
    return mock.vscode;
  }
  const loaded = load.call(this, request, ...rest);
  if (request === 'child_process' || request === 'node:child_process') {
    const cp = loaded as typeof import('node:child_process');
    return {
      ...cp,
      spawn: (...args: Parameters<typeof cp.spawn>) => {
        const [command, argv] = args as unknown as [string, readonly string[] | undefined];
        wire.spawned.push([command, ...(argv ?? [])]);
        const child: ChildProcess = cp.spawn(...args);
        child.stdout?.on('data', (d: Buffer) => {
          wire.toClient = Buffer.concat([wire.toClient, d]);
        });
        const stdin = child.stdin;
        if (stdin) {
          const write = stdin.write.bind(stdin) as (chunk: unknown, ...rest: unknown[]) => boolean;
          stdin.write = ((chunk: unknown, ...more: unknown[]) => {
            wire.toServer = Buffer.concat([wire.toServer, Buffer.from(chunk as string)]);
            return write(chunk, ...more);
          }) as typeof stdin.write;
        }
        return child;
      },
    };
  }
  return loaded;
};
