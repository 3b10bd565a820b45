// The Debug Adapter Protocol suite: Microsoft's DAP test client drives `backspin debug`
// on our own test program (crates/debug/tests/roms/counter.asm). Run by test/run.sh, which
// builds the binary and the ROM and sets BACKSPIN and BACKSPIN_TEST_ROMS.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const backspin = process.env.BACKSPIN;
const romDir = process.env.BACKSPIN_TEST_ROMS;
if (!backspin || !romDir) {
  throw new Error('run through test/run.sh (BACKSPIN and BACKSPIN_TEST_ROMS unset)');
}
const program = path.join(romDir, 'counter.gb');

async function session(t) {
  const dc = new DebugClient(backspin, 'debug', 'backspin');
  dc.defaultTimeout = 60000;
  await dc.start();
  t.after(() => dc.stop());
  await dc.initializeRequest();
  await Promise.all([
    dc.waitForEvent('initialized'),
    dc.launchRequest({ program, stopOnEntry: true }),
  ]);
  await Promise.all([dc.waitForEvent('stopped'), dc.configurationDoneRequest()]);
  return dc;
}

async function pc(dc) {
  const trace = await dc.stackTraceRequest({ threadId: 1 });
  return trace.body.stackFrames[0].instructionPointerReference;
}

async function stateHash(dc) {
  const vars = await dc.variablesRequest({ variablesReference: 4 });
  return vars.body.variables.find((v) => v.name === 'state CRC-32').value;
}

async function registers(dc) {
  const vars = await dc.variablesRequest({ variablesReference: 1 });
  return Object.fromEntries(vars.body.variables.map((v) => [v.name, v.value]));
}

// Sends a stepping request and waits for the stop it causes.
async function stepping(dc, request) {
  const [event] = await Promise.all([dc.waitForEvent('stopped'), request]);
  return event.body;
}

test('breaks at a label and steps in, over and out', async (t) => {
  const dc = await session(t);
  const bps = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'MainLoop' }] });
  assert.strictEqual(bps.body.breakpoints[0].verified, true);
  const stop = await stepping(dc, dc.continueRequest({ threadId: 1 }));
  assert.strictEqual(stop.reason, 'breakpoint');
  assert.match(stop.description, /frame \d+, LY \d+, dot \d+, M-cycle \d+/);
  assert.strictEqual(await pc(dc), '0x0160');
  await stepping(dc, dc.stepInRequest({ threadId: 1 }));
  assert.strictEqual(await pc(dc), '0x016A'); // Increment
  const trace = await dc.stackTraceRequest({ threadId: 1 });
  assert.strictEqual(trace.body.stackFrames.length, 2);
  await stepping(dc, dc.stepOutRequest({ threadId: 1 }));
  assert.strictEqual(await pc(dc), '0x0163');
  await stepping(dc, dc.nextRequest({ threadId: 1 }));
  assert.strictEqual(await pc(dc), '0x0166');
});

test('reads and sets registers, reads memory, disassembles around PC with labels', async (t) => {
  const dc = await session(t);
  await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'Increment' }] });
  await stepping(dc, dc.continueRequest({ threadId: 1 }));
  await dc.setVariableRequest({ variablesReference: 1, name: 'b', value: '$5A' });
  assert.strictEqual((await registers(dc)).b, '$5A');
  const eval1 = await dc.evaluateRequest({ expression: 'b == $5A && [wCounter] < 10' });
  assert.match(eval1.body.result, /^\$01/);
  const memory = await dc.customRequest('readMemory', { memoryReference: '0x0150', count: 4 });
  assert.strictEqual(Buffer.from(memory.body.data, 'base64').toString('hex'), 'f33100e0');
  const dis = await dc.disassembleRequest({
    memoryReference: await pc(dc), instructionOffset: -2, instructionCount: 5,
  });
  const lines = dis.body.instructions;
  assert.strictEqual(lines[2].address, '0x016A');
  assert.strictEqual(lines[2].symbol, 'Increment');
  assert.strictEqual(lines[2].instruction, 'ld a, [wCounter]');
  const bad = await dc.evaluateRequest({ expression: 'a ==' }).catch((e) => e);
  assert.ok(bad instanceof Error && /expression ends early/.test(bad.message));
});

test('a write watchpoint, two writes, reverse continue back to the first', async (t) => {
  const dc = await session(t);
  const info = await dc.dataBreakpointInfoRequest({ name: 'wCounter' });
  await dc.setDataBreakpointsRequest({
    breakpoints: [{ dataId: info.body.dataId, accessType: 'write' }],
  });
  for (let i = 0; i < 3; i++) {
    assert.strictEqual((await stepping(dc, dc.continueRequest({ threadId: 1 }))).reason, 'data breakpoint');
  }
  const first = { pc: await pc(dc), regs: await registers(dc), hash: await stateHash(dc) };
  await stepping(dc, dc.continueRequest({ threadId: 1 }));
  const second = await stateHash(dc);
  assert.notStrictEqual(second, first.hash);
  const back = await stepping(dc, dc.reverseContinueRequest({ threadId: 1 }));
  assert.strictEqual(back.reason, 'data breakpoint');
  assert.strictEqual(await pc(dc), first.pc);
  assert.deepStrictEqual(await registers(dc), first.regs);
  assert.strictEqual(await stateHash(dc), first.hash);
});

test('1,000 steps back and 1,000 forward return to identical state', async (t) => {
  const dc = await session(t);
  for (let i = 0; i < 60; i++) {
    await stepping(dc, dc.customRequest('stepFrame', { threadId: 1 }));
  }
  const start = await stateHash(dc);
  for (let i = 0; i < 1000; i++) {
    await stepping(dc, dc.stepBackRequest({ threadId: 1 }));
  }
  assert.notStrictEqual(await stateHash(dc), start);
  for (let i = 0; i < 1000; i++) {
    await stepping(dc, dc.stepInRequest({ threadId: 1 }));
  }
  assert.strictEqual(await stateHash(dc), start);
});

test('errors get error responses and the session goes on', async (t) => {
  const dc = await session(t);
  const unknown = await dc.customRequest('noSuchRequest', {}).catch((e) => e);
  assert.ok(unknown instanceof Error);
  const label = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'NoSuchLabel' }] });
  assert.strictEqual(label.body.breakpoints[0].verified, false);
  assert.match(label.body.breakpoints[0].message, /unknown label/);
  const range = await dc.customRequest('readMemory', { memoryReference: '0x10000', count: 1 }).catch((e) => e);
  assert.ok(range instanceof Error);
  const threads = await dc.threadsRequest();
  assert.strictEqual(threads.body.threads.length, 1);
});

test('breaks by source file and line (our assembler\'s line table)', async (t) => {
  const dc = await session(t);
  const source = path.resolve(__dirname, '../../../crates/debug/tests/roms/counter.asm');
  const lines = require('node:fs').readFileSync(source, 'utf8').split('\n');
  const label = lines.findIndex((l) => l.trim() === 'Increment:') + 1;
  const bps = await dc.setBreakpointsRequest({ source: { path: source }, breakpoints: [{ line: label }] });
  assert.strictEqual(bps.body.breakpoints[0].verified, true);
  assert.strictEqual(bps.body.breakpoints[0].line, label + 1); // moved to the first code line
  const stop = await stepping(dc, dc.continueRequest({ threadId: 1 }));
  assert.strictEqual(stop.reason, 'breakpoint');
  const trace = await dc.stackTraceRequest({ threadId: 1 });
  const top = trace.body.stackFrames[0];
  assert.strictEqual(top.line, label + 1);
  assert.strictEqual(path.basename(top.source.path), 'counter.asm');
});
