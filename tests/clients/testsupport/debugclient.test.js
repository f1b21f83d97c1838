'use strict';
// VS Code's own adapter test client (DebugClient from @vscode/debugadapter-testsupport)
// drives aliceserver's DAP adapter, over stdio and over TCP (launch.json `debugServer`),
// on tests/programs/dap_basic.c compiled at test time. DebugClient sends the minimal
// initialize arguments ({adapterID, linesStartAt1, columnsStartAt1, pathFormat}) and ignores
// reverse requests: an adapter must work with that.

const assert = require('assert');
const fs = require('fs');
const { Adapter, buildProgram, launchArgs } = require('./helpers');

// Adapters split a frame's variables differently (lldb: one Locals scope with the
// arguments; aliceserver: Locals and Arguments): the tests look at both.
function frameScopes(scopes) {
  const found = scopes.filter(
    (s) =>
      s.presentationHint === 'locals' ||
      s.presentationHint === 'arguments' ||
      /^(local|argument)/i.test(s.name),
  );
  assert.ok(found.length > 0, `no locals scope in ${JSON.stringify(scopes)}`);
  return found;
}

async function variablesOf(dc, reference) {
  const response = await dc.variablesRequest({ variablesReference: reference });
  const byName = {};
  for (const variable of response.body.variables) {
    byName[variable.name] = variable;
  }
  return byName;
}

async function frameLocals(dc, frameId) {
  const scopes = await dc.scopesRequest({ frameId });
  const byName = {};
  for (const scope of frameScopes(scopes.body.scopes)) {
    Object.assign(byName, await variablesOf(dc, scope.variablesReference));
  }
  return byName;
}

async function firstThread(dc) {
  const threads = await dc.threadsRequest();
  assert.ok(threads.body.threads.length >= 1, 'no threads while stopped');
  return threads.body.threads[0].id;
}

for (const mode of ['stdio', 'tcp']) {
  describe(`aliceserver DAP adapter over ${mode}, driven by DebugClient`, function () {
    let built;
    let adapter;
    let dc;

    before(function () {
      built = buildProgram('dap_basic');
    });

    after(function () {
      if (built) {
        fs.rmSync(built.dir, { recursive: true, force: true });
      }
    });

    beforeEach(async function () {
      adapter = new Adapter(mode);
      dc = await adapter.start();
    });

    afterEach(async function () {
      await adapter.stop();
    });

    it('answers initialize with its capabilities', async function () {
      const response = await dc.initializeRequest();
      assert.strictEqual(response.success, true);
      assert.strictEqual(response.body.supportsConfigurationDoneRequest, true);
    });

    it('runs the program to its end through the configuration sequence', async function () {
      const [, , exited] = await Promise.all([
        dc.configurationSequence(),
        dc.launch(launchArgs(built.program)),
        dc.waitForEvent('exited'),
        dc.waitForEvent('terminated'),
      ]);
      assert.strictEqual(exited.body.exitCode, 0);
    });

    it('sends the program output as output events', async function () {
      await Promise.all([
        dc.configurationSequence(),
        dc.launch(launchArgs(built.program)),
        dc.assertOutput('stdout', 'grand=94 ratio=0.5 letter=q text=hello'),
        dc.waitForEvent('terminated'),
      ]);
    });

    it('hits a breakpoint (hitBreakpoint)', async function () {
      await dc.hitBreakpoint(launchArgs(built.program), {
        path: built.source,
        line: built.line('square'),
      });
    });

    it('shows the stack, scopes and variables', async function () {
      await dc.hitBreakpoint(launchArgs(built.program), {
        path: built.source,
        line: built.line('square'),
      });
      const threadId = await firstThread(dc);
      const trace = await dc.stackTraceRequest({ threadId });
      const frames = trace.body.stackFrames;
      assert.deepStrictEqual(
        frames.slice(0, 3).map((f) => f.name),
        ['square', 'sum_points', 'main'],
      );
      assert.deepStrictEqual(
        frames.slice(0, 3).map((f) => f.line),
        [built.line('square'), built.line('sum_loop'), built.line('main_loop')],
      );
      assert.strictEqual(frames[0].source.path, built.source);

      // VS Code first asks for the top frame alone.
      const top = await dc.stackTraceRequest({ threadId, startFrame: 0, levels: 1 });
      assert.strictEqual(top.body.stackFrames.length, 1);
      assert.strictEqual(top.body.stackFrames[0].name, 'square');

      const squareLocals = await frameLocals(dc, frames[0].id);
      assert.strictEqual(squareLocals.v.value, '1');

      const mainLocals = await frameLocals(dc, frames[2].id);
      assert.strictEqual(mainLocals.rounds.value, '2');
      assert.match(mainLocals.ratio.value, /^0\.5/);
      assert.match(mainLocals.letter.value, /q/);
      assert.match(mainLocals.text.value, /"hello"/);
      assert.strictEqual(mainLocals.grand.value, '0');

      // pts is an array of structs: children all the way down.
      assert.ok(mainLocals.pts.variablesReference > 0, 'pts has no children');
      const elements = await variablesOf(dc, mainLocals.pts.variablesReference);
      const names = Object.keys(elements);
      assert.strictEqual(names.length, 3, `pts children: ${names}`);
      const first = elements[names[0]];
      assert.ok(first.variablesReference > 0, 'pts[0] has no children');
      const fields = await variablesOf(dc, first.variablesReference);
      assert.strictEqual(fields.x.value, '1');
      assert.strictEqual(fields.y.value, '2');
      assert.match(fields.name.value, /"a"/);
    });

    it('evaluates expressions in a frame, and refuses bad ones', async function () {
      await dc.hitBreakpoint(launchArgs(built.program), {
        path: built.source,
        line: built.line('square'),
      });
      const threadId = await firstThread(dc);
      const trace = await dc.stackTraceRequest({ threadId, startFrame: 0, levels: 1 });
      const frameId = trace.body.stackFrames[0].id;
      const watch = await dc.evaluateRequest({ expression: 'v * 2 + 1', frameId, context: 'watch' });
      assert.strictEqual(watch.body.result, '3');
      // DebugClient rejects the promise of a response with success: false.
      await assert.rejects(
        dc.evaluateRequest({ expression: 'no_such_name', frameId, context: 'watch' }),
      );
    });

    it('steps in, over and out', async function () {
      await dc.hitBreakpoint(launchArgs(built.program), {
        path: built.source,
        line: built.line('sum_loop'),
      });
      const threadId = await firstThread(dc);
      await Promise.all([
        dc.stepInRequest({ threadId }),
        dc.assertStoppedLocation('step', { path: built.source, line: built.line('square') }),
      ]);
      await Promise.all([
        dc.nextRequest({ threadId }),
        dc.assertStoppedLocation('step', { line: built.line('square') + 1 }),
      ]);
      const [, out] = await Promise.all([
        dc.stepOutRequest({ threadId }),
        dc.assertStoppedLocation('step', { line: built.line('sum_loop') }),
      ]);
      assert.strictEqual(out.body.stackFrames[0].name, 'sum_points');
    });

    it('stops on a loop breakpoint at every iteration', async function () {
      await dc.hitBreakpoint(launchArgs(built.program), {
        path: built.source,
        line: built.line('main_loop'),
      });
      const threadId = await firstThread(dc);
      for (const expected of ['0', '1']) {
        const trace = await dc.stackTraceRequest({ threadId, startFrame: 0, levels: 1 });
        const locals = await frameLocals(dc, trace.body.stackFrames[0].id);
        assert.strictEqual(locals.k.value, expected);
        if (expected === '0') {
          const [response] = await Promise.all([
            dc.continueRequest({ threadId }),
            dc.assertStoppedLocation('breakpoint', { line: built.line('main_loop') }),
          ]);
          assert.strictEqual(response.success, true);
        }
      }
    });

    it('continues to the exit once the breakpoints are cleared', async function () {
      await dc.hitBreakpoint(launchArgs(built.program), {
        path: built.source,
        line: built.line('main_loop'),
      });
      const threadId = await firstThread(dc);
      const cleared = await dc.setBreakpointsRequest({
        source: { path: built.source },
        breakpoints: [],
      });
      assert.deepStrictEqual(cleared.body.breakpoints, []);
      const [, exited] = await Promise.all([
        dc.continueRequest({ threadId }),
        dc.waitForEvent('exited'),
        dc.waitForEvent('terminated'),
      ]);
      assert.strictEqual(exited.body.exitCode, 0);
    });
  });
}
