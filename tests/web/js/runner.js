// A small test runner for the web client's modules, run in Chromium by tests/web/test_web_modules.py: each
// test module registers tests with test(); run() runs them in order and leaves the results on
// window.unitResults for pytest to read.

const tests = [];

export function test(name, fn) {
  tests.push({ name, fn });
}

export function assert(condition, message = 'assertion failed') {
  if (!condition) throw new Error(message);
}

/** Equal as JSON (plain data: views, moves, layouts). */
export function eq(actual, expected, message = '') {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${message ? `${message}: ` : ''}expected ${e}, got ${a}`);
}

export async function run() {
  const results = [];
  for (const t of tests) {
    try {
      await t.fn();
      results.push({ name: t.name, ok: true });
    } catch (err) {
      results.push({ name: t.name, ok: false, error: String((err && err.stack) || err) });
    }
  }
  window.unitResults = { done: true, results };
}
