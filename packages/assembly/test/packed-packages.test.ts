import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkExampleBot, STARTING_BOT_TOML } from '../../../examples/bot/test/example-bot-checks.js';
import { botFor, checkReadmeBot, codeLines } from './readme-bot-checks.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EXAMPLE_BOT = join(ROOT, 'examples', 'bot');
const BIN = join(ROOT, 'node_modules', '.bin');
const require = createRequire(import.meta.url);
/** The published packages, in dependency order (the order `build:packages` builds them in). */
const PACKAGES = ['core', 'store-json', 'store-redis', 'http-hono', 'gateway', 'client', 'assembly'] as const;
const LISTENING = 'WebUI API listening';
// Building, packing and installing take seconds, more under a full parallel test run (six tsc builds beside two other test files).
const SLOW_STEP_MS = 300_000;

interface Output {
  stdout: string;
  stderr: string;
}

interface Packed {
  name: string;
  tarball: string;
}

/** Runs a command to its end; rejects with everything it printed when it fails. */
function run(cmd: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Output> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error)
        reject(new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed: ${error.message}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** `npm run pack -- --out DIR`, as the README says: installs the workspace if needed, builds, packs each package with pnpm. */
async function buildAndPack(destination: string): Promise<Packed[]> {
  await run(process.execPath, [join(ROOT, 'scripts', 'pack.mjs'), '--out', destination], ROOT);
  const tarballs = readdirSync(destination).filter((file) => file.endsWith('.tgz'));
  return PACKAGES.map((dir) => {
    const file = tarballs.find((name) => name.startsWith(`webui-${dir}-`));
    if (file === undefined) throw new Error(`npm run pack wrote no tarball of @webui/${dir} (${tarballs.join(', ')})`);
    return { name: `@webui/${dir}`, tarball: join(destination, file) };
  });
}

/** publint over the tarball's own files, so it judges what a user installs, not the working tree. */
async function publintProblems({ name, tarball }: Packed): Promise<string[]> {
  const { messages, pkg } = await publint({ pack: { tarball: new Uint8Array(readFileSync(tarball)).buffer }, strict: true });
  return messages.map((message) => `${name}: ${message.type}: ${formatMessage(message, pkg, { color: false }) ?? message.code}`);
}

/** attw's verdict on the tarball; esm-only because these packages have no CommonJS build to offer. */
async function attwProblems({ name, tarball }: Packed): Promise<string[]> {
  try {
    const { stdout } = await run(join(BIN, 'attw'), [tarball, '--profile', 'esm-only', '--no-color', '--no-emoji'], dirname(tarball));
    // attw exits 0 for a package without types at all: that is a failure here.
    return stdout.includes('This package does not contain types.') ? [`${name}: attw found no types\n${stdout}`] : [];
  } catch (error) {
    return [`${name}: ${(error as Error).message}`];
  }
}

/** What docs/extending.md tells a bot's author to run in the bot's folder, `PACKS` standing for the tarballs' folder. */
const INSTALL_STEPS = [
  'npm init -y && npm pkg set type=module',
  'npm install PACKS/*.tgz hono valibot',
  'npm install --save-dev typescript@~5.9.3 @types/node@^20.19.0',
] as const;
const COMPILE_STEP = 'npx tsc --strict --module nodenext --target es2022 bot.ts';

/** One step of INSTALL_STEPS as npm's argument lists, the tarballs spelled out as the shell's glob would. */
function npmCommands(step: string, packed: readonly Packed[]): string[][] {
  return step.split(' && ').map((command) =>
    command
      .split(' ')
      .slice(1)
      .flatMap((word) => (word === 'PACKS/*.tgz' ? packed.map(({ tarball }) => tarball) : [word])),
  );
}

/**
 * A project of its own outside the workspace, installed with npm as docs/extending.md says (npm's cache first: only what it
 * lacks is fetched), and what the other examples import beside: smol-toml (examples/bot) and the Node server's own adapters
 * (the assembly README's hand-made server).
 */
async function installScratchProject(dir: string, packed: readonly Packed[]): Promise<void> {
  const npm = (args: readonly string[]) =>
    run('npm', [...args, ...(args[0] === 'install' ? ['--prefer-offline', '--no-audit', '--no-fund'] : [])], dir, {
      ...process.env,
      npm_config_update_notifier: 'false',
    });
  for (const step of INSTALL_STEPS) for (const args of npmCommands(step, packed)) await npm(args);
  await npm(['install', 'smol-toml@^1.9.1', '@hono/node-server@~1.19.19', '@hono/node-ws@~1.3.1']);
}

// vitest's `it` and `expect` as the README example uses them, over node:assert, so the example runs as plain JavaScript.
const EXAMPLE_PRELUDE = `import assert from 'node:assert/strict';
const examples = [];
function it(name, run) { examples.push({ name, run }); }
function expect(actual) { return { toEqual: (expected) => assert.deepStrictEqual(actual, expected) }; }
`;
const EXAMPLE_EPILOGUE = `
for (const { name, run } of examples) {
  await run();
  console.log(\`passed: \${name}\`);
}
`;

/** The first ```ts block of packages/core/README.md, verbatim. */
function coreReadmeExample(): string {
  const readme = readFileSync(join(ROOT, 'packages', 'core', 'README.md'), 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error('packages/core/README.md has no ```ts block');
  return block;
}

// The Node deployment in miniature, written as a user would, against the installed packages only.
const SERVER = `import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { createNodeWebSocket } from '@hono/node-ws';
import { Hono } from 'hono';
import {
  assembleWebui, createFileStore, createLogger, dataDirectoryStorage, LogFeed, loadSettings, systemClock, systemRandom,
} from '@webui/assembly';
import { createCore } from '@webui/core';

const loaded = loadSettings({ argv: ['--data-dir', process.argv[2], '--host', '127.0.0.1', '--port', '0'], env: {}, cwd: process.cwd() });
const feed = new LogFeed();
const logger = createLogger(loaded.settings.logLevel, feed);
const storage = dataDirectoryStorage(createFileStore(loaded.dataDir, systemClock, logger), loaded.dataDir);
await storage.open();
const core = createCore({ store: storage.store, clock: systemClock, random: systemRandom });
const { upgradeWebSocket } = createNodeWebSocket({ app: new Hono() });
const runtime = { getConnInfo, upgrade: upgradeWebSocket };
const webui = await assembleWebui({ loaded, storage, core, logger, feed, runtime });
serve({ fetch: webui.app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  webui.listening.push({ host: '127.0.0.1', port: info.port });
  webui.announce();
});
`;

/** How the scratch project compiles examples/bot: type-checked against the packages' published types. */
const BOT_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    types: ['node'],
    rootDir: 'src',
    outDir: 'dist',
  },
  include: ['src/**/*.ts'],
};

/** Resolves with the port of the server's listening log line; rejects with its output if it exits first. */
function waitForListening(child: ChildProcess, output: Output): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (why: string) => reject(new Error(`${why}\n--- stdout\n${output.stdout}\n--- stderr\n${output.stderr}`));
    child.stdout?.on('data', () => {
      // Whole lines only: the last piece may still be arriving.
      for (const line of output.stdout.split('\n').slice(0, -1)) {
        if (!line.includes(LISTENING)) continue;
        const { addresses } = JSON.parse(line) as { addresses?: string[] };
        const address = addresses?.[0];
        if (address === undefined) return failed('listening line without addresses');
        return resolve(Number(new URL(address).port));
      }
    });
    child.once('exit', (code, signal) => failed(`server exited (code ${code}, signal ${signal}) before listening`));
    child.once('error', (error) => failed(error.message));
  });
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** node:http rather than fetch: the request carries exactly the Host header given. */
function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    });
    outgoing.once('error', reject);
    outgoing.end(body);
  });
}

const bun = join(dirname(require.resolve('bun/package.json')), 'bin', 'bun.exe');
const deno = (require('deno/install_api.cjs') as { runInstall(): string }).runInstall();
/** docs/extending.md's Deno permissions, the data directories (under `dir`) the ones it may write. */
const DENO_PERMISSIONS = (dir: string) => [
  '--allow-net',
  '--allow-env',
  '--allow-read',
  `--allow-write=${dir}`,
  '--allow-sys=hostname,networkInterfaces',
];
const EXTENDING = join(ROOT, 'docs', 'extending.md');

/** The first ```ts block of docs/extending.md, verbatim: the bot a reader writes. */
function extendingBot(): string {
  const block = /```ts\n([\s\S]*?)```/.exec(readFileSync(EXTENDING, 'utf8'))?.[1];
  if (block === undefined) throw new Error('docs/extending.md has no ```ts block');
  return block;
}

/** Starts `command` in `cwd` on a free port of 127.0.0.1 with its own data directory; resolves with its port once it listens. */
async function launch(
  children: ChildProcess[],
  command: string,
  args: readonly string[],
  cwd: string,
  dataDir: string,
): Promise<{ port: number; output: Output }> {
  const output: Output = { stdout: '', stderr: '' };
  const child = spawn(command, [...args, '--data-dir', dataDir, '--host', '127.0.0.1', '--port', '0'], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  return { port: await waitForListening(child, output), output };
}

describe('the packages as published', () => {
  const tempDirs: string[] = [];
  const children: ChildProcess[] = [];
  let packed: Packed[] = [];

  function tempDir(label: string): string {
    const dir = mkdtempSync(join(tmpdir(), label));
    tempDirs.push(dir);
    return dir;
  }

  beforeAll(async () => {
    packed = await buildAndPack(tempDir('webui-packs-'));
  }, SLOW_STEP_MS);

  afterAll(async () => {
    await Promise.all(
      children.map((child) => {
        if (child.exitCode !== null || child.signalCode !== null) return undefined;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        return exited;
      }),
    );
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  }, SLOW_STEP_MS);

  it('pack the seven packages', () => {
    expect(packed.map(({ name }) => name)).toEqual(PACKAGES.map((dir) => `@webui/${dir}`));
  });

  it('pass publint', async () => {
    const problems = (await Promise.all(packed.map(publintProblems))).flat();
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it(
    'pass attw',
    async () => {
      const problems = (await Promise.all(packed.map(attwProblems))).flat();
      expect(problems, problems.join('\n')).toEqual([]);
    },
    SLOW_STEP_MS,
  );

  describe('installed with npm in a project outside the workspace, as docs/extending.md says', () => {
    let project = '';

    beforeAll(async () => {
      project = tempDir('webui-packed-project-');
      await installScratchProject(project, packed);
    }, SLOW_STEP_MS);

    it(
      'run the core README example on Node, Bun and Deno',
      async () => {
        writeFileSync(join(project, 'example.mjs'), EXAMPLE_PRELUDE + coreReadmeExample() + EXAMPLE_EPILOGUE);
        const runs = await Promise.all([
          run(process.execPath, ['example.mjs'], project),
          run(bun, ['example.mjs'], project),
          // Deno 2 reads the project's package.json and node_modules; no permission is needed, none is asked for.
          run(deno, ['run', '--quiet', '--no-prompt', 'example.mjs'], project),
        ]);
        expect(runs.map(({ stdout }) => stdout)).toEqual(Array(3).fill('passed: keeps a ban for 10 minutes\n'));
      },
      SLOW_STEP_MS,
    );

    it(
      'serve the API from a minimal Node server',
      async () => {
        writeFileSync(join(project, 'server.mjs'), SERVER);
        const dataDir = join(project, 'data');
        const output: Output = { stdout: '', stderr: '' };
        const child = spawn(process.execPath, ['server.mjs', dataDir], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
        children.push(child);
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
        const port = await waitForListening(child, output);

        const health = await send(port, 'GET', '/api/webui/health');
        expect(health.status, health.body).toBe(200);
        expect(JSON.parse(health.body)).toMatchObject({ status: 'healthy' });

        const { access_token: token } = JSON.parse(readFileSync(join(dataDir, 'webui.json'), 'utf8')) as { access_token: string };
        const verify = await send(
          port,
          'POST',
          '/api/webui/auth/verify',
          { Host: `127.0.0.1:${port}`, 'Content-Type': 'application/json' },
          JSON.stringify({ token }),
        );
        expect(verify.status, verify.body).toBe(200);
        expect(JSON.parse(verify.body)).toMatchObject({ valid: true });
        const cookies = verify.headers['set-cookie'] ?? [];
        expect(cookies).toHaveLength(1);
        expect(cookies[0]).toMatch(/^bot_session=[^;]+;/);
        expect(cookies[0]).toMatch(/;\s*HttpOnly(;|$)/i);

        // The setup page is the assembly's built dist/web, which only the tarball can have brought.
        const page = await send(port, 'GET', '/', { Host: `127.0.0.1:${port}` });
        expect(page.status).toBe(200);
        expect(page.headers['content-type']).toMatch(/^text\/html/);
      },
      SLOW_STEP_MS,
    );

    it('are what the README and docs/extending.md say to run', () => {
      const docs = readFileSync(EXTENDING, 'utf8');
      for (const step of [...INSTALL_STEPS, COMPILE_STEP]) expect(docs).toContain(step.replace('PACKS/', '/path/to/webui-api/packs/'));
      expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('npm install /path/to/webui-api/packs/*.tgz hono valibot');
    });

    it(
      'run the bot of docs/extending.md, at most 20 lines, on Node (the production server), Bun and Deno',
      async () => {
        const source = extendingBot();
        expect(codeLines(source)).toBeLessThanOrEqual(20);
        const runtimes = ['node', 'bun', 'deno'] as const;
        const dir = join(project, 'readme-bot');
        mkdirSync(dir);
        for (const runtime of runtimes) writeFileSync(join(dir, `bot-${runtime}.ts`), botFor(source, runtime));
        // The docs' compile step for each runtime's file; the project's own tsc (typescript and @types/node as installed).
        const [, ...tscFlags] = COMPILE_STEP.replace(/ bot\.ts$/, '')
          .split(' ')
          .slice(1);
        await run(join(project, 'node_modules', '.bin', 'tsc'), [...tscFlags, ...runtimes.map((runtime) => `bot-${runtime}.ts`)], dir);
        const commands: Record<(typeof runtimes)[number], [string, string[]]> = {
          node: [process.execPath, ['bot-node.js']],
          bun: [bun, ['bot-bun.js']],
          deno: [deno, ['run', '--quiet', '--no-prompt', ...DENO_PERMISSIONS(dir), 'bot-deno.js']],
        };
        await Promise.all(
          runtimes.map(async (runtime) => {
            const dataDir = join(dir, `data-${runtime}`);
            const [command, args] = commands[runtime];
            const { port, output } = await launch(children, command, args, dir, dataDir);
            const failed = (error: Error) => {
              throw new Error(`${runtime}: ${error.message}\n--- stdout\n${output.stdout}\n--- stderr\n${output.stderr}`);
            };
            await checkReadmeBot(port, dataDir, () => output.stdout).catch(failed);
            if (runtime !== 'node') return;
            // The production server: the same file's `webui` command reaches it through its control socket.
            const created = await run(process.execPath, ['bot-node.js', 'keys', 'create', 'ci', '--data-dir', dataDir], dir);
            const key = created.stdout.trim().split('\n').pop() ?? '';
            const read = await fetch(`http://127.0.0.1:${port}/api/webui/config/bot`, { headers: { authorization: `Bearer ${key}` } });
            expect(read.status).toBe(200);
            // Only the Node server opens the control socket the command went through.
            expect(statSync(join(dataDir, 'webui.sock')).isSocket()).toBe(true);
          }),
        );
      },
      SLOW_STEP_MS,
    );

    it(
      'run examples/bot on Node, Bun and Deno',
      async () => {
        const bot = join(project, 'bot');
        cpSync(join(EXAMPLE_BOT, 'src'), join(bot, 'src'), { recursive: true });
        writeFileSync(join(bot, 'tsconfig.json'), JSON.stringify(BOT_TSCONFIG, null, 2));
        // tsc gives every runtime JavaScript, checking the bot against the published .d.ts on the way.
        await run(join(project, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], bot);
        const launches: Record<string, [string, string[]]> = {
          node: [process.execPath, ['dist/node.js']],
          bun: [bun, ['dist/bun.js']],
          deno: [deno, ['run', '--quiet', '--no-prompt', ...DENO_PERMISSIONS(bot), 'dist/deno.js']],
        };
        await Promise.all(
          Object.entries(launches).map(async ([runtime, [command, args]]) => {
            const dataDir = join(bot, `data-${runtime}`);
            mkdirSync(dataDir, { mode: 0o700 });
            writeFileSync(join(dataDir, 'bot.toml'), STARTING_BOT_TOML, { mode: 0o600 });
            const { port, output } = await launch(children, command, args, bot, dataDir);
            await checkExampleBot(port, dataDir, runtime).catch((error: Error) => {
              throw new Error(`${runtime}: ${error.message}\n--- stdout\n${output.stdout}\n--- stderr\n${output.stderr}`);
            });
          }),
        );
      },
      SLOW_STEP_MS,
    );
  });
});
