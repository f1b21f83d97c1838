'use strict';
// Shared by the DebugClient tests: build a test program, find marked lines, and start
// aliceserver's DAP adapter over stdio (DebugClient spawns it) or TCP (debugServer mode:
// we start `--port 0`, read the port it prints, and DebugClient connects to it).

const assert = require('assert');
const cp = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const REPO = path.resolve(__dirname, '..', '..', '..');
const PROGRAMS = path.join(REPO, 'tests', 'programs');
const LAUNCHER = path.join(__dirname, '..', 'alice_dap.py');
const EVENT_TIMEOUT = 30000;

function python() {
  if (process.env.ALICESERVER_PYTHON) {
    return process.env.ALICESERVER_PYTHON;
  }
  const venv = path.join(REPO, '.venv', 'bin', 'python');
  return fs.existsSync(venv) ? venv : 'python3';
}

/** 1-based line of the one line of `source` carrying `@bp:name`. */
function markerLine(source, name) {
  const pattern = new RegExp(`@bp:${name}(?![\\w-])`);
  const hits = [];
  fs.readFileSync(source, 'utf8').split('\n').forEach((text, index) => {
    if (pattern.test(text)) {
      hits.push(index + 1);
    }
  });
  assert.strictEqual(hits.length, 1, `${path.basename(source)}: lines marked @bp:${name}: ${hits}`);
  return hits[0];
}

/** Compile tests/programs/NAME.c with gcc -g into a fresh temporary directory. */
function buildProgram(name) {
  const source = path.join(PROGRAMS, `${name}.c`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alice-clients-'));
  const program = path.join(dir, name);
  cp.execFileSync('gcc', ['-g', '-O0', '-fno-omit-frame-pointer', '-o', program, source], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { source, program, dir, line: (marker) => markerLine(source, marker) };
}

function launchArgs(program, extra) {
  return Object.assign(
    {
      type: 'alice',
      request: 'launch',
      name: 'DebugClient test',
      program,
      args: [],
      cwd: path.dirname(program),
      stopOnEntry: false,
    },
    extra || {},
  );
}

function waitExit(child, ms) {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve(true);
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Kill `child` (SIGTERM, then SIGKILL) and wait until it is gone: no leftovers. */
async function reap(child) {
  if (!child) {
    return;
  }
  if (await waitExit(child, 2000)) {
    return;
  }
  child.kill('SIGTERM');
  if (!(await waitExit(child, 3000))) {
    child.kill('SIGKILL');
    await waitExit(child, 5000);
  }
}

/** Start `python -m aliceserver --adapter dap --port 0`; resolve with {child, port, stderr}. */
function startServer() {
  return new Promise((resolve, reject) => {
    const child = cp.spawn(python(), ['-m', 'aliceserver', '--adapter', 'dap', '--port', '0'], {
      cwd: REPO,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not say where it listens:\n${stderr}`));
    }, EVENT_TIMEOUT);
    child.stderr.on('data', (chunk) => {
      stderr += chunk.toString();
      const found = /listening on \S+:(\d+)/.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve({ child, port: Number(found[1]), stderr: () => stderr });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code || signal}) before listening:\n${stderr}`));
    });
  });
}

/** One adapter under test; `start()` gives a DebugClient connected to it. */
class Adapter {
  constructor(mode) {
    this.mode = mode;
    this.client = null;
    this.child = null;
  }

  async start() {
    const verbose = Boolean(process.env.ALICESERVER_CLIENT_STDERR);
    if (this.mode === 'stdio') {
      this.client = new DebugClient(python(), LAUNCHER, 'alice', { cwd: REPO }, verbose);
      this.client.defaultTimeout = EVENT_TIMEOUT;
      await this.client.start();
      // DebugClient.stop() kills its adapter without waiting: keep the handle to reap it.
      this.child = this.client._adapterProcess;
    } else {
      const server = await startServer();
      this.child = server.child;
      this.client = new DebugClient('unused', 'unused', 'alice');
      // Port mode has no DebugClient timeouts: mocha's own timeout bounds each test.
      await this.client.start(server.port);
    }
    return this.client;
  }

  async stop() {
    const child = this.child;
    if (this.client) {
      await this.client.stop();
    }
    if (this.mode === 'tcp' && child && child.exitCode === null) {
      child.kill('SIGTERM'); // the server keeps listening for more sessions
    }
    await reap(child);
    this.client = null;
    this.child = null;
  }
}

module.exports = {
  Adapter,
  buildProgram,
  launchArgs,
  markerLine,
};
