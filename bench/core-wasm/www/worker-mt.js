// worker.js for the build with shared memory (served as mt/worker.js beside that build's glue,
// bench/core-wasm.mjs --threads N): starts N-1 pool workers on this module's memory (pool.js),
// then runs steps.js with N-1 helper threads decoding manifests ahead, as the CLI's --threads N.
importScripts('prv_core_wasm.js', '../steps.js');
onmessage = async (e) => {
  try {
    const module = await WebAssembly.compileStreaming(fetch('prv_core_wasm_bg.wasm'));
    wasm_bindgen.initSync({ module });
    const memory = wasm_bindgen.wasm_memory();
    const helpers = Math.max(0, e.data.threads - 1);
    await Promise.all(Array.from({ length: helpers }, () => new Promise((resolve, reject) => {
      const pool = new Worker('pool.js');
      pool.onmessage = (m) => (m.data === 'ready' ? resolve() : reject(new Error(String(m.data))));
      pool.onerror = (err) => reject(new Error(err.message));
      pool.postMessage({ module, memory });
    })));
    const core = {
      analyse: (bytes) => wasm_bindgen.analyse_zip_threaded(bytes, helpers),
      reserve: (n) => wasm_bindgen.reserve_memory(n),
      touch: (mib) => wasm_bindgen.touch_memory(mib),
      after: () => ({ takenFromHelpers: wasm_bindgen.last_taken_from_helpers() }),
    };
    postMessage(await prvCoreSteps(core, e.data, '../'));
  } catch (err) {
    postMessage({ error: String(err) });
  }
};
