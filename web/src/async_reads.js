// Asynchronous Blob reads for the analysis worker, through JavaScript Promise Integration (JSPI).
// Run by the worker's bootstrap (web/src/spawn.rs) before Trunk's glue; see web/src/blob.rs.
//
// The core is synchronous. With FileReaderSync, each read stops the worker until the browser has
// read the bytes, so reading a warehouse's metadata (24 MB in 7 reads for 6,000 snapshots) adds
// its whole time to the analysis. With JSPI the worker starts the reads the core announces
// (RandomAccess::will_read) as soon as it announces them, keeps working, and is suspended only
// when a read it needs has not arrived yet:
//   * the wasm-bindgen import whose name starts with __wbg_prvAwaitRead_ becomes a
//     WebAssembly.Suspending import, so when it returns a Promise the wasm stack is suspended
//     until the Promise settles;
//   * the export prv_dispatch becomes self.prvDispatchAsync = WebAssembly.promising(...), and
//     every message to the worker goes through it, one at a time (the next waits until the
//     previous analysis is done, suspensions included).
// Without JSPI (a browser that lacks it) nothing here is installed and the worker reads with
// FileReaderSync as before. Only the worker's own files are read; nothing leaves the tab.
(() => {
  if (typeof WebAssembly.Suspending !== 'function' || typeof WebAssembly.promising !== 'function') {
    return;
  }
  const SUSPENDING = /^__wbg_prvAwaitRead_/i;
  const wrapped = new WeakSet();
  const wrapImports = (imports) => {
    if (!imports || wrapped.has(imports)) return;
    wrapped.add(imports);
    for (const module of Object.values(imports)) {
      for (const name of Object.keys(module)) {
        if (SUSPENDING.test(name)) module[name] = new WebAssembly.Suspending(module[name]);
      }
    }
  };
  const keep = (result) => {
    const instance = result instanceof WebAssembly.Instance ? result : result.instance;
    if (instance && typeof instance.exports.prv_dispatch === 'function') {
      self.prvDispatchAsync = WebAssembly.promising(instance.exports.prv_dispatch);
    }
    return result;
  };
  const streaming = WebAssembly.instantiateStreaming;
  const instantiate = WebAssembly.instantiate;
  if (typeof streaming === 'function') {
    WebAssembly.instantiateStreaming = (source, imports) => {
      wrapImports(imports);
      return streaming.call(WebAssembly, source, imports).then(keep);
    };
  }
  WebAssembly.instantiate = (source, imports) => {
    wrapImports(imports);
    return instantiate.call(WebAssembly, source, imports).then(keep);
  };

  // The reads themselves run in a small reader worker of this worker's own: a Blob read is
  // delivered to the thread that asked for it, piece by piece, only while that thread's event
  // loop runs, and this one is busy with the analysis. The reader reads the announced ranges
  // in order while at most AHEAD_BYTES of them are outstanding (read or being read, not yet
  // taken), and transfers each ArrayBuffer here when it is complete.
  const AHEAD_BYTES = 32 << 20;
  const READER = `
    const AHEAD_BYTES = ${AHEAD_BYTES};
    let generation = 0, outstanding = 0, queue = [];
    const start = (r) => {
      outstanding += r.len;
      r.blob.slice(r.offset, r.offset + r.len).arrayBuffer().then(
        (buffer) => postMessage({ ...r, blob: undefined, buffer }, [buffer]),
        (error) => postMessage({ ...r, blob: undefined, error: String(error && error.message || error) }),
      );
    };
    const pump = () => { while (queue.length > 0 && outstanding < AHEAD_BYTES) start(queue.shift()); };
    onmessage = ({ data: m }) => {
      if (m.generation !== generation) { generation = m.generation; queue = []; outstanding = 0; }
      if (m.kind === 'read') {
        for (const [offset, len] of m.ranges) queue.push({ generation, id: m.id, blob: m.blob, offset, len });
      } else if (m.kind === 'taken') {
        outstanding -= m.len;
      } else if (m.kind === 'now') {
        const i = queue.findIndex((r) => r.id === m.id && r.offset === m.offset && r.len === m.len);
        if (i >= 0) start(queue.splice(i, 1)[0]);
      }
      pump();
    };`;
  let reader = null;
  try {
    const url = URL.createObjectURL(new Blob([READER], { type: 'text/javascript' }));
    // The fragment names it (a blob: URL's fragment does not change what it loads).
    reader = new Worker(`${url}#prv-reader`, { name: 'prv-reader' });
    URL.revokeObjectURL(url);
  } catch {
    reader = null; // reads are then started here (still asynchronous, without overlap)
  }
  let generation = 0;
  const blobIds = new Map(); // Blob -> id
  const announced = new Set(); // keys announced and not taken
  const arrived = new Map(); // key -> reader message
  const waiting = new Map(); // key -> resolve
  let taken;
  const key = (id, offset, len) => `${id}:${offset}+${len}`;
  const blobId = (blob) => {
    let id = blobIds.get(blob);
    if (id === undefined) {
      id = blobIds.size;
      blobIds.set(blob, id);
    }
    return id;
  };
  if (reader) {
    reader.onmessage = ({ data: m }) => {
      if (m.generation !== generation) return;
      const k = key(m.id, m.offset, m.len);
      const resolve = waiting.get(k);
      if (resolve) {
        waiting.delete(k);
        resolve(m);
      } else {
        arrived.set(k, m);
      }
    };
  }
  const deliver = (m) => {
    if (m.error !== undefined) {
      taken = new Error(m.error);
      return -1;
    }
    taken = m.buffer;
    return m.buffer.byteLength;
  };
  const readHere = (blob, offset, len) =>
    blob.slice(offset, offset + len).arrayBuffer().then(
      (buffer) => deliver({ buffer }),
      (error) => deliver({ error: String((error && error.message) || error) }),
    );
  // The core announces ranges (offset, len pairs, flattened) it will read, in order.
  self.prvWillRead = (blob, ranges) => {
    if (!reader) return;
    const id = blobId(blob);
    const pairs = [];
    for (let i = 0; i + 1 < ranges.length; i += 2) {
      pairs.push([ranges[i], ranges[i + 1]]);
      announced.add(key(id, ranges[i], ranges[i + 1]));
    }
    reader.postMessage({ kind: 'read', generation, id, blob, ranges: pairs });
  };
  // The core needs offset..offset+len now: its length (-1 if the read failed) if it is here
  // (no suspension), else a Promise of it; the bytes (or the error) are then taken with
  // prvTakeRead.
  self.prvAwaitRead = (blob, offset, len) => {
    const id = blobId(blob);
    const k = key(id, offset, len);
    if (!announced.delete(k)) return readHere(blob, offset, len);
    reader.postMessage({ kind: 'taken', generation, len });
    const m = arrived.get(k);
    if (m) {
      arrived.delete(k);
      return deliver(m);
    }
    // Not here yet: make sure the reader has started it, and wait.
    reader.postMessage({ kind: 'now', generation, id, offset, len });
    return new Promise((resolve) => waiting.set(k, resolve)).then(deliver);
  };
  self.prvTakeRead = () => {
    const t = taken;
    taken = undefined;
    return t;
  };
  // Before each message: drop what the previous one announced and never took.
  self.prvForgetReads = () => {
    generation += 1;
    blobIds.clear();
    announced.clear();
    arrived.clear();
    waiting.clear();
    taken = undefined;
  };
  // Called once the glue has started the worker (Rust's start() has installed its own message
  // handler by then): routes every message through prv_dispatch under JSPI, one at a time.
  self.prvInstallDispatch = () => {
    const dispatch = self.prvDispatchAsync;
    if (!dispatch) return;
    let chain = Promise.resolve();
    self.onmessage = (event) => {
      chain = chain
        .then(() => {
          self.prvMessage = event.data;
          return dispatch();
        })
        // A trap has been reported by the panic hook already; keep serving later messages.
        .catch(() => {});
    };
  };
})();
