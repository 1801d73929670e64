// The core alone (prv_core_wasm.wasm, bench/core-wasm/src/lib.rs) in a dedicated worker: warms it
// on the page's bundled example for warmMs as the page does, waits pauseMs (the user picking a
// file), reserves wasm memory for the first zip as the page's worker does when it opens the
// user's file, optionally makes touchMiB of it resident, then analyses each zip `repeat` times
// from memory and posts the times.
importScripts('prv_core_wasm.js');
onmessage = async (e) => {
  const { zips, warmMs, pauseMs, touchMiB, repeat } = e.data;
  try {
    await wasm_bindgen('prv_core_wasm_bg.wasm');
    const load = async (name) => new Uint8Array(await (await fetch(name)).arrayBuffer());
    const example = await load('example.zip');
    const inputs = [];
    for (const z of zips) inputs.push([z, await load(z)]);
    const t = performance.now();
    let warmRuns = 0;
    while (warmRuns === 0 || performance.now() - t < warmMs) { wasm_bindgen.analyse_zip(example); warmRuns++; }
    await new Promise((r) => setTimeout(r, pauseMs));
    if (inputs.length) wasm_bindgen.reserve_memory(inputs[0][1].length);
    let touchMs = null;
    if (touchMiB) { const s = performance.now(); wasm_bindgen.touch_memory(touchMiB); touchMs = performance.now() - s; }
    const runs = [];
    for (const [name, bytes] of inputs) {
      for (let i = 0; i < repeat; i++) {
        const s = performance.now();
        wasm_bindgen.analyse_zip(bytes);
        runs.push({ zip: name, run: i, ms: performance.now() - s });
      }
    }
    postMessage({ warmRuns, touchMs, runs });
  } catch (err) {
    postMessage({ error: String(err) });
  }
};
