import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupServers, defaultLauncher, eventually, makeTempDir } from '../harness/processes/server-process.js';

afterAll(cleanupServers);

const shellQuoted = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

/**
 * The server started on a real terminal: util-linux's `script` gives it a pseudo-terminal as stdout and stderr (both on the one
 * terminal, as an operator's shell has them); what the terminal shows comes back, \r\n turned into \n.
 */
async function onTerminal(env: Record<string, string> = {}): Promise<string> {
  const cwd = makeTempDir();
  const { cmd, args } = defaultLauncher.command(cwd, ['--port', '0', '--host', '127.0.0.1'], {});
  const childEnv = { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WEBUI_'))), ...env };
  delete childEnv['NO_COLOR'];
  const child = spawn('script', ['-qfec', [cmd, ...args].map(shellQuoted).join(' '), '/dev/null'], { cwd, env: childEnv });
  let shown = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (shown += chunk.replaceAll('\r\n', '\n')));
  const closed = new Promise((resolve) => child.once('close', resolve));
  try {
    await eventually(() => /WebUI API listening/.test(shown), 20_000, 'the listening line on the terminal');
  } finally {
    // script passes SIGTERM on to the server, which stops as it does under a supervisor.
    child.kill('SIGTERM');
    await closed;
  }
  return shown;
}

// ESC [ ... m: a colour code.
const COLOURS = /\u001b\[[0-9;]*m/g;
const BANNER =
  /\nWebUI management API\n {2}listening {3}http:\/\/127\.0\.0\.1:\d+\/api\/webui\n {2}data .*\n {2}token {7}temporary: [0-9a-f]{64}\n {2}login URL .*\n .*\n\n/;

describe('the terminal an operator starts the server on', () => {
  it('shows readable coloured log lines, no JSON, and the banner once and whole', async () => {
    const shown = await onTerminal();
    expect(shown).toMatch(COLOURS);
    const plain = shown.replace(COLOURS, '');
    const lines = plain.split('\n');
    expect(lines.filter((line) => line.startsWith('{'))).toEqual([]);
    expect(lines).toContainEqual(expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: WebUI API listening \{"addresses":/));
    // Written in one piece, with no log line inside it.
    expect(plain.match(new RegExp(BANNER, 'g'))).toHaveLength(1);
    expect(plain.indexOf('WebUI management API')).toBeLessThan(plain.indexOf('INFO: WebUI API listening'));
  });

  it('writes JSON lines on a terminal too when WEBUI_LOG_FORMAT=json says so', async () => {
    const shown = await onTerminal({ WEBUI_LOG_FORMAT: 'json' });
    const logLines = shown.split('\n').filter((line) => line.startsWith('{'));
    expect(logLines.map((line) => JSON.parse(line) as { msg: string })).toContainEqual(
      expect.objectContaining({ msg: 'WebUI API listening' }),
    );
    expect(shown).not.toMatch(/\] INFO: /);
  });
});
