import { createConnection } from 'node:net';
import * as v from 'valibot';
import type { AdminRequest } from './admin-protocol.js';

/** How long the CLI waits for a running server's answer before saying it does not answer. */
export const CONTROL_ANSWER_TIMEOUT_MS = 3_000;

/** How one request to the control socket went: answered, nobody there, no answer in time, or another failure in one line. */
export type ControlExchange<Answer> =
  | { kind: 'answered'; answer: Answer }
  // No socket file, or a file no process listens on (left by a killed server).
  | { kind: 'absent' }
  | { kind: 'silent' }
  | { kind: 'failed'; message: string };

/** Sends one request line to the server's control socket and reads one answer line, checked against `answerSchema`. */
export function askControlSocket<TSchema extends v.GenericSchema>(
  path: string,
  request: AdminRequest,
  answerSchema: TSchema,
  timeoutMs = CONTROL_ANSWER_TIMEOUT_MS,
): Promise<ControlExchange<v.InferOutput<TSchema>>> {
  return new Promise((resolve) => {
    const socket = createConnection({ path });
    let received = '';
    const finish = (exchange: ControlExchange<v.InferOutput<TSchema>>) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(exchange);
    };
    const timer = setTimeout(() => finish({ kind: 'silent' }), timeoutMs);

    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => {
      received += chunk;
      const newline = received.indexOf('\n');
      if (newline !== -1) finish(readAnswer(received.slice(0, newline), answerSchema));
    });
    socket.on('error', (error: NodeJS.ErrnoException) => finish(connectionFailure(path, error)));
    socket.on('close', () => finish({ kind: 'failed', message: `the server closed ${path} without answering` }));
  });
}

function readAnswer<TSchema extends v.GenericSchema>(line: string, answerSchema: TSchema): ControlExchange<v.InferOutput<TSchema>> {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return { kind: 'failed', message: 'the server answered something that is not JSON' };
  }
  const result = v.safeParse(answerSchema, json);
  if (!result.success)
    return {
      kind: 'failed',
      message: `the server's answer was not understood (${result.issues[0].message}); is it the same version as this command?`,
    };
  return { kind: 'answered', answer: result.output };
}

function connectionFailure<Answer>(path: string, error: NodeJS.ErrnoException): ControlExchange<Answer> {
  switch (error.code) {
    case 'ENOENT':
    case 'ECONNREFUSED':
      return { kind: 'absent' };
    case 'EACCES':
    case 'EPERM':
      return { kind: 'failed', message: `permission denied on ${path}: run this as the user the server runs as` };
    default:
      return { kind: 'failed', message: `cannot reach the server through ${path}: ${error.message}` };
  }
}
