// What both workers do once their module is ready (worker.js: the single-threaded build;
// worker-mt.js: the build with shared memory; bench/core-wasm.mjs runs it in Node too): warm on
// the page's example for warmMs, as the page warms its worker; wait pauseMs (the user picking a
// file); reserve wasm memory for the first zip as the page's worker does when it opens the
// user's file; optionally make touchMiB of it resident; then analyse each zip `repeat` times
// from memory. Returns what to post.
// `core` holds the module's functions: analyse(bytes), reserve(bytes), touch(mib) and,
// optionally, after() (what to record of the analysis just done).
async function prvCoreSteps(core, { zips, warmMs, pauseMs, touchMiB, repeat }, base) {
  const load = async (name) => new Uint8Array(await (await fetch(base + name)).arrayBuffer());
  const example = await load('example.zip');
  const inputs = [];
  for (const z of zips) inputs.push([z, await load(z)]);
  const t = performance.now();
  let warmRuns = 0;
  while (warmRuns === 0 || performance.now() - t < warmMs) {
    core.analyse(example);
    warmRuns++;
  }
  await new Promise((r) => setTimeout(r, pauseMs));
  if (inputs.length) core.reserve(inputs[0][1].length);
  let touchMs = null;
  if (touchMiB) {
    const s = performance.now();
    core.touch(touchMiB);
    touchMs = performance.now() - s;
  }
  const runs = [];
  for (const [name, bytes] of inputs) {
    for (let i = 0; i < repeat; i++) {
      const s = performance.now();
      core.analyse(bytes);
      runs.push({ zip: name, run: i, ms: performance.now() - s, ...(core.after ? core.after() : {}) });
    }
  }
  return { warmRuns, touchMs, runs };
}
