// What every peer proxy of the gateway comparison is started with: `--port N --upstream-port M`, both on 127.0.0.1.
import { parseArgs } from 'node:util';

/** The ports from the command line; exits with a message when one is missing. */
export function peerOptions() {
  const { values } = parseArgs({ options: { port: { type: 'string' }, 'upstream-port': { type: 'string' } } });
  const port = Number(values.port);
  const upstreamPort = Number(values['upstream-port']);
  if (!(port > 0) || !(upstreamPort > 0)) {
    process.stderr.write(`${process.argv[1]}: --port N --upstream-port M are needed\n`);
    process.exit(2);
  }
  return { port, upstreamPort, upstream: `http://127.0.0.1:${upstreamPort}` };
}

/** SIGTERM ends the process at once: the bench stops a peer between rounds, with nothing left to finish. */
export function exitOnSigterm() {
  process.on('SIGTERM', () => process.exit(0));
}
