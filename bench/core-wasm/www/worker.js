// The core alone (prv_core_wasm.wasm, bench/core-wasm/src/lib.rs) in a dedicated worker, as the
// page runs its worker (steps.js); posts the times.
importScripts('prv_core_wasm.js', 'steps.js');
onmessage = async (e) => {
  try {
    await wasm_bindgen('prv_core_wasm_bg.wasm');
    const core = {
      analyse: (bytes) => wasm_bindgen.analyse_zip(bytes),
      reserve: (n) => wasm_bindgen.reserve_memory(n),
      touch: (mib) => wasm_bindgen.touch_memory(mib),
    };
    postMessage(await prvCoreSteps(core, e.data, ''));
  } catch (err) {
    postMessage({ error: String(err) });
  }
};
