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

  // Reads announced and not yet taken are started in order while at most AHEAD_BYTES of them
  // are outstanding (started or arrived, not taken), so memory stays bounded on any artifact.
  const AHEAD_BYTES = 32 << 20;
  let sources = new Map(); // Blob -> { queue: [[offset, len]], started: Map(key -> Promise) }
  let outstanding = 0;
  let taken;
  const key = (offset, len) => `${offset}+${len}`;
  const source = (blob) => {
    let s = sources.get(blob);
    if (!s) {
      s = { blob, queue: [], started: new Map() };
      sources.set(blob, s);
    }
    return s;
  };
  const start = (s, offset, len) => {
    const p = s.blob.slice(offset, offset + len).arrayBuffer();
    // A read that fails is reported when it is taken; keep the rejection from being unhandled.
    p.catch(() => {});
    return p;
  };
  const pump = () => {
    for (const s of sources.values()) {
      while (s.queue.length > 0 && outstanding < AHEAD_BYTES) {
        const [offset, len] = s.queue.shift();
        const k = key(offset, len);
        if (s.started.has(k)) continue;
        s.started.set(k, start(s, offset, len));
        outstanding += len;
      }
    }
  };
  // The core announces ranges (offset, len pairs, flattened) it will read, in order.
  self.prvWillRead = (blob, ranges) => {
    const s = source(blob);
    for (let i = 0; i + 1 < ranges.length; i += 2) s.queue.push([ranges[i], ranges[i + 1]]);
    pump();
  };
  // The core needs offset..offset+len now: a Promise of the length read (-1 if the read failed);
  // the bytes (or the error) are then taken with prvTakeRead.
  self.prvAwaitRead = (blob, offset, len) => {
    const s = source(blob);
    const k = key(offset, len);
    let p = s.started.get(k);
    if (p) {
      s.started.delete(k);
      outstanding -= len;
    } else {
      const i = s.queue.findIndex(([o, l]) => o === offset && l === len);
      if (i >= 0) s.queue.splice(i, 1);
      p = start(s, offset, len);
    }
    pump();
    return p.then(
      (buffer) => {
        taken = buffer;
        return buffer.byteLength;
      },
      (error) => {
        taken = error;
        return -1;
      },
    );
  };
  self.prvTakeRead = () => {
    const t = taken;
    taken = undefined;
    return t;
  };
  // Before each analysis: drop what the previous one announced and never took.
  self.prvForgetReads = () => {
    sources = new Map();
    outstanding = 0;
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
