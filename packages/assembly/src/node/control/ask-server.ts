import { InstanceLock } from '@webui/store-json';
import type * as v from 'valibot';
import { askControlSocket, CONTROL_ANSWER_TIMEOUT_MS } from './control-client.js';
import type { AdminRequest } from './admin-protocol.js';
import { controlSocketPlace, type ControlSocketPlace } from './control-socket-place.js';

/** How asking the server of a data directory went: its answer, no server there, or a server that cannot be reached (why, in one line). */
export type Reached<Answer> = { kind: 'answered'; answer: Answer } | { kind: 'stopped' } | { kind: 'unreachable'; message: string };

/**
 * Asks the server of `dataDir`; when its socket is not there, the instance lock tells a stopped server
 * from one that cannot be reached. `instead` ends the unreachable message: what the operator can do.
 */
export async function askServer<TSchema extends v.GenericSchema>(
  dataDir: string,
  request: AdminRequest,
  answerSchema: TSchema,
  instead: string,
): Promise<Reached<v.InferOutput<TSchema>>> {
  const place = controlSocketPlace(dataDir);
  if (place.kind === 'usable') {
    const exchange = await askControlSocket(place.path, request, answerSchema);
    if (exchange.kind === 'answered') return exchange;
    if (exchange.kind === 'silent')
      return { kind: 'unreachable', message: `the server does not answer on ${place.path} within ${CONTROL_ANSWER_TIMEOUT_MS / 1000} s` };
    if (exchange.kind === 'failed') return { kind: 'unreachable', message: exchange.message };
  }
  const pid = InstanceLock.holder(dataDir);
  if (pid === null) return { kind: 'stopped' };
  return { kind: 'unreachable', message: whyUnreachable(place, pid, instead) };
}

function whyUnreachable(place: ControlSocketPlace, pid: number, instead: string): string {
  switch (place.kind) {
    case 'unsupported':
      return `the server (pid ${pid}) runs, but this platform has no control socket to reach it; ${instead}`;
    case 'too-long':
      return (
        `the server (pid ${pid}) runs without a control socket: ${place.path} is longer than ${place.maxBytes} bytes; use a shorter ` +
        `data directory, or ${instead}`
      );
    case 'usable':
      return (
        `the server (pid ${pid}) holds the data directory but does not listen on ${place.path} (starting, or its log says why); try ` +
        `again, or ${instead}`
      );
  }
}
