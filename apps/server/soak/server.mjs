// The real server for the soak: the built bundle in a temporary working directory, watched through its log and /proc.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const LISTENING = 'WebUI API listening';

/**
 * Starts `bundle` with `config` as config/bot_config.toml; resolves once it listens.
 * stdout is read line by line and dropped, except error lines, which are kept for the report.
 */
export async function startSoakServer(bundle, config) {
  const cwd = mkdtempSync(join(tmpdir(), 'webui-soak-'));
  mkdirSync(join(cwd, 'config'));
  writeFileSync(join(cwd, 'config', 'bot_config.toml'), config);
  const child = spawn(process.execPath, [bundle, '--port', '0', '--host', '127.0.0.1'], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: withoutWebuiVariables(),
  });
  const errorLines = [];
  let stderr = '';
  let partial = '';
  let onListening = () => undefined;
  let port = 0;
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      let entry;
      try {
        entry = JSON.parse(line);
      } catch {
        continue;
      }
      if (entry.level >= 50) errorLines.push(line.slice(0, 500));
      if (entry.msg === LISTENING) {
        port = Number(new URL(entry.addresses[0]).port);
        onListening();
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not listen within 20 s\n${stderr}`)), 20_000);
    onListening = () => {
      clearTimeout(timer);
      resolve();
    };
    void exited.then(({ code, signal }) =>
      reject(new Error(`the server exited (code ${code}, signal ${signal}) before listening\n${stderr}`)),
    );
  });

  return {
    pid: child.pid,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    dataDir: join(cwd, 'data'),
    errorLines,
    stderr: () => stderr,
    alive: () => child.exitCode === null && child.signalCode === null,
    rssMb: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) / 1024,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const result = await exited;
      rmSync(cwd, { recursive: true, force: true });
      return result;
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

function withoutWebuiVariables() {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WEBUI_')));
}
