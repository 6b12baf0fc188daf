import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { collectOutput, type Finished } from '@sms-webhooks/test-helpers/collect-output';
import { bundleForNode } from '@sms-webhooks/test-helpers/node-program';
import ts from 'typescript';
import type { CodeBlock, Runtime } from './markdown-blocks.js';

export const root = fileURLToPath(new URL('../../', import.meta.url));
const work = join(root, 'test', '.tmp', 'docs');

export interface BlockResult extends Finished {
  block: CodeBlock;
}

/**
 * `npx sms-webhooks …` in a shell block runs this workspace's CLI from source; any other `npx` package
 * would come from the registry, which a README test must not need, so it fails loudly.
 */
function shimDir(): string {
  const dir = join(work, 'bin');
  mkdirSync(dir, { recursive: true });
  const npx = join(dir, 'npx');
  writeFileSync(
    npx,
    [
      '#!/usr/bin/env bash',
      'if [ "$1" = "sms-webhooks" ]; then',
      '  shift',
      `  exec ${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(join(root, 'packages/cli/src/bin.ts'))} "$@"`,
      'fi',
      'echo "docs test: npx $1 would install from the registry; only npx sms-webhooks runs here" >&2',
      'exit 127',
      '',
    ].join('\n'),
  );
  chmodSync(npx, 0o755);
  // `pnpm [--filter <name>] [run] <script> [args…]` runs a script of a workspace package (the named one,
  // or the one in the working directory) as pnpm would; any other pnpm command installs, and fails.
  writeFileSync(join(dir, 'pnpm.cjs'), PNPM);
  const pnpm = join(dir, 'pnpm');
  writeFileSync(
    pnpm,
    `#!/usr/bin/env bash\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(`${pnpm}.cjs`)} "$@"\n`,
  );
  chmodSync(pnpm, 0o755);
  // A block that installs must say `docs-test: skip`: a test run never changes the workspace's packages.
  for (const installer of ['npm', 'yarn']) {
    const file = join(dir, installer);
    writeFileSync(
      file,
      `#!/usr/bin/env bash\necho "docs test: ${installer} would change the installed packages; mark the block docs-test: skip" >&2\nexit 127\n`,
    );
    chmodSync(file, 0o755);
  }
  return dir;
}

/** The `pnpm` shim's script (CommonJS, Node built-ins only). */
const PNPM = `const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { spawn } = require('node:child_process');
const root = ${JSON.stringify(root)};
const read = (d) => JSON.parse(readFileSync(join(d, 'package.json'), 'utf8'));
const args = process.argv.slice(2);
let dir = process.cwd();
if (args[0] === '--filter') {
  const dirs = ['examples', 'packages'].flatMap((p) => readdirSync(join(root, p)).map((d) => join(root, p, d)));
  dir = [root, ...dirs].find((d) => existsSync(join(d, 'package.json')) && read(d).name === args[1]);
  args.splice(0, 2);
}
if (args[0] === 'run') args.shift();
const script = dir && existsSync(join(dir, 'package.json')) ? read(dir).scripts?.[args[0]] : undefined;
if (!script) {
  console.error('docs test: pnpm ' + process.argv.slice(2).join(' ') + ' is no script of this workspace; an install must say docs-test: skip');
  process.exit(127);
}
const bin = join(dir, 'node_modules', '.bin') + ':' + join(root, 'node_modules', '.bin');
// \`tsx file\` runs as \`node --import tsx file\`: the same loader, without the tsx CLI's parent process,
// which SIGKILLs its child when the child takes over 30 ms to report a Ctrl-C sent to the whole group
// (a loaded machine), so a graceful shutdown would end with 130.
const command = script.replace(/^tsx /, ${JSON.stringify(JSON.stringify(process.execPath))} + ' --import tsx ');
const child = spawn('bash', ['-c', command + ' "$@"', script, ...args.slice(1)], {
  cwd: dir,
  stdio: 'inherit',
  env: { ...process.env, PATH: bin + ':' + process.env.PATH },
});
// Ctrl-C reaches the whole process group: the script handles it, and its exit code is pnpm's.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => {});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 130 : 1)));
`;

/** Where a block's file goes and what runs it. */
export interface RunOptions {
  /** From `installedFor`: what the README's reader has installed is in its node_modules. */
  dir: string;
  on: Runtime;
}

const NODE: RunOptions = { dir: work, on: 'node' };

/**
 * The directory a README's blocks are written to, under test/.tmp/docs: its node_modules is the one of
 * `pkg` (the package the README documents, its own directory by default), so a block imports what a
 * reader who installed that package has (Nest from packages/nestjs, the OpenTelemetry SDK from
 * packages/otel); anything else resolves from the repository root's, as before.
 */
export function installedFor(pkg: string): string {
  const dir = pkg === '.' ? work : join(work, pkg.replace(/\//g, '-'));
  mkdirSync(dir, { recursive: true });
  const modules = join(root, pkg, 'node_modules');
  const link = join(dir, 'node_modules');
  if (dir !== work && existsSync(modules)) {
    // A link an earlier run left may point at a node_modules since reinstalled: make it again.
    rmSync(link, { force: true });
    try {
      symlinkSync(modules, link);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return dir;
}

/**
 * As tsc compiles it for an app (legacy decorators with their metadata, which Nest's injection by type
 * needs and esbuild does not emit); tsx then runs the result, resolving @sms-webhooks/* to the sources.
 */
function compile(code: string): string {
  return ts.transpileModule(code, {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
    },
  }).outputText;
}

async function command(
  block: CodeBlock,
  code: string,
  options: RunOptions,
): Promise<{ file: string; args: string[] }> {
  mkdirSync(options.dir, { recursive: true });
  if (['sh', 'bash', 'shell'].includes(block.lang)) {
    return { file: 'bash', args: ['-euo', 'pipefail', '-c', code] };
  }
  // Under the repository root: its node_modules, and the sources of @sms-webhooks/* (bundled in below).
  // A block that starts with `// <name>.ts` is that file: the blocks after it can import it by name.
  const named = /^\/\/ ([\w.-]+\.ts)\b/.exec(code);
  const file = named
    ? join(options.dir, `files-${process.pid}`, named[1]!)
    : join(options.dir, `block-${process.pid}-${block.line}.ts`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, compile(code));
  if (options.on === 'node') {
    // Bundled with the sources beside the block (its node_modules are the reader's): what tsx would run.
    const program = await bundleForNode(file, `${file}.bundle`);
    return { file: process.execPath, args: ['--enable-source-maps', program] };
  }
  // Bundled from the sources as that runtime resolves the packages, then run on it (run-on.ts).
  return {
    file: process.execPath,
    args: ['--import', 'tsx', join(root, 'test/docs/run-on.ts'), options.on, file],
  };
}

function environment(env: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...env, PATH: `${shimDir()}:${process.env.PATH}` };
}

/** Runs one block to its end. */
export async function runBlock(
  block: CodeBlock,
  code: string,
  env: Record<string, string>,
  timeoutMs: number,
  options = NODE,
): Promise<BlockResult> {
  const { file, args } = await command(block, code, options);
  const child = spawn(file, args, { cwd: root, env: environment(env), detached: true });
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
  try {
    return { block, ...(await collectOutput(child)) };
  } finally {
    clearTimeout(timer);
  }
}

export interface Background {
  block: CodeBlock;
  /** The named groups of the line that matched `until`. */
  groups: Record<string, string>;
  /** Its stdout and stderr lines so far. */
  output(): string;
  /** Ctrl-C to the whole process group, then its exit code, or the signal that ended it. */
  stop(): Promise<number | NodeJS.Signals | null>;
}

/** Starts a long-running program and resolves once a line of its stdout or stderr matches `until`. */
export async function startBlock(
  block: CodeBlock,
  code: string,
  until: RegExp,
  env: Record<string, string>,
  timeoutMs: number,
  options = NODE,
): Promise<Background> {
  const { file, args } = await command(block, code, options);
  const child: ChildProcess = spawn(file, args, { cwd: root, env: environment(env), detached: true });
  let output = '';
  const exited = new Promise<number | NodeJS.Signals | null>((r) =>
    child.on('exit', (code, signal) => r(code ?? signal)),
  );
  const background = (groups: Record<string, string>): Background => ({
    block,
    groups,
    output: () => output,
    async stop() {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGINT');
      return exited;
    },
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      reject(new Error(`no line matching ${until} within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    // Both streams: some servers say where they listen on stderr (Deno.serve does).
    const read = (line: string) => {
      output += `${line}\n`;
      const match = until.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(background({ ...match.groups }));
      }
    };
    createInterface({ input: child.stdout! }).on('line', read);
    createInterface({ input: child.stderr! }).on('line', read);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before a line matching ${until}:\n${output}`));
    });
  });
}
