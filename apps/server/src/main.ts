import 'reflect-metadata';
import { runCli } from './cli.js';
import { keepHeapTight } from './runtime/tight-heap.js';

keepHeapTight();

const result = await runCli(process.argv.slice(2), process.env, process.cwd()).catch((error: unknown) => {
  process.stderr.write(`webui: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 1;
});
if (result !== 'running') process.exitCode = result;
