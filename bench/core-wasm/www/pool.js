// A pool worker of the build with shared memory: instantiates the module on the analysis
// worker's memory, says so, and runs helper jobs until the page closes (it blocks between
// them in Atomics.wait, which a worker may do).
importScripts('prv_core_wasm.js');
onmessage = (e) => {
  try {
    wasm_bindgen.initSync({ module: e.data.module, memory: e.data.memory });
  } catch (err) {
    postMessage(String(err));
    return;
  }
  postMessage('ready');
  wasm_bindgen.pool_worker_loop();
};
