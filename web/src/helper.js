// The analysis worker's helper worker: a second worker that decodes manifests ahead of the
// analysis, as the CLI's helper threads do (src/timeline/prefetch/relay.rs, web/src/helper.rs).
// Run by the worker's bootstrap (web/src/spawn.rs) after async_reads.js, in both roles:
//
//   * in the analysis worker (started by the page), it starts the helper when the worker starts,
//     passes the page's warm-up on to it, and, for each analysis, hands it the same files with a
//     run number. The helper's messages (claims, batches of decoded files) arrive here, and only
//     while the analysis is suspended (JSPI): the core asks for them (prvHelperReceive), lets the
//     event loop turn (prvHelperPause) or waits for the next one (prvHelperWait);
//   * in the helper (self.prvRole === 'helper'), it keeps how far the analysis has come for each
//     run (prvHelperReached), so that the helper's decoding loop stops where they meet.
//
// Only with JSPI (the analysis could not take anything mid-way without it). Without JSPI, or if
// the helper cannot be started, nothing here runs and the analysis decodes everything itself,
// with the same report. Only the user's own files go to the helper; nothing leaves the tab.
(() => {
  if (typeof WebAssembly.Suspending !== 'function' || typeof WebAssembly.promising !== 'function') {
    return;
  }
  // One turn of this worker's event loop (faster than setTimeout, which clamps nested calls).
  const channel = new MessageChannel();
  const turns = [];
  channel.port1.onmessage = () => {
    const resolve = turns.shift();
    if (resolve) resolve(0);
  };
  const turn = () => new Promise((resolve) => {
    turns.push(resolve);
    channel.port2.postMessage(0);
  });
  self.prvHelperPause = () => turn();

  if (self.prvRole === 'helper') {
    // The helper: for each run, the newest position the analysis told ("reached"); a run is
    // over when the analysis says so (index -1 stands for "the end") or a newer run begins.
    let newest = 0;
    const reached = new Map();
    self.prvHelperIntercept = (data) => {
      if (!data || typeof data !== 'object') return false;
      if (data.kind === 'help' && typeof data.run === 'number') newest = Math.max(newest, data.run);
      if (data.prvHelper !== 'reached') return false;
      reached.set(data.run, data.index);
      return true;
    };
    // -2: the run is over; -1: nothing reached yet; else the highest index the analysis has
    // taken or decoded.
    self.prvHelperReached = (run) => {
      if (run < newest) return -2;
      const r = reached.get(run);
      return r === undefined ? -1 : r;
    };
    self.prvHelperPost = (run, kind, from, bytes) => {
      if (bytes) {
        const copy = bytes.slice();
        self.postMessage({ prvHelper: kind, run, from, buffer: copy.buffer }, [copy.buffer]);
      } else {
        self.postMessage({ prvHelper: kind, run, from });
      }
    };
    return;
  }

  // The analysis worker.
  const WAIT_LIMIT_MS = 5000; // a helper silent this long is given up for this run
  let helper = null;
  let ready = false;
  let usable = true;
  const queued = []; // messages for the helper before it is ready
  let run = 0; // the current run (0: none)
  let inbox = [];
  let waiter = null;
  const toHelper = (message) => {
    if (!helper || !usable) return;
    if (ready) helper.postMessage(message);
    else queued.push(message);
  };
  try {
    const source = `self.prvRole = 'helper';\n${self.prvBootstrap}`;
    const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    helper = new Worker(`${url}#prv-helper`, { name: 'prv-helper' });
    URL.revokeObjectURL(url);
  } catch {
    helper = null;
  }
  if (!helper) return;
  helper.onerror = () => {
    usable = false;
  };
  helper.onmessage = ({ data: m }) => {
    if (m && typeof m === 'object' && typeof m.prvHelper === 'string') {
      if (m.run !== run) return; // a previous run's
      inbox.push(m);
      if (waiter) {
        const w = waiter;
        waiter = null;
        w(1);
      }
      return;
    }
    // The helper's replies to the worker protocol (web/src/protocol.rs, JSON strings).
    const text = typeof m === 'string' ? m : '';
    if (text.includes('"type":"ready"')) {
      ready = true;
      for (const q of queued.splice(0)) helper.postMessage(q);
    } else if (text.includes('"type":"failed"')) {
      usable = false; // a crashed helper is not used again; the analysis decodes by itself
    }
  };
  // Called by the dispatcher for every message from the page, before the core sees it.
  self.prvHelperIntercept = (data) => {
    if (!data || typeof data !== 'object') return false;
    if (data.kind === 'warm') toHelper(data);
    if (data.kind === 'analyse' && usable) {
      run += 1;
      inbox = [];
      help = { ...data, kind: 'help', run };
    }
    return false; // the core handles it too
  };
  // The analysis has opened the files: the helper may start (not earlier: its own opening would
  // compete with the analysis's first reads, which nothing can overlap).
  let help = null;
  self.prvHelperGo = () => {
    if (help) toHelper(help);
    help = null;
  };
  // The run the core's analysis may take help from (0: none).
  self.prvHelperRun = () => (usable ? run : 0);
  self.prvHelperReceive = () => {
    const out = inbox;
    inbox = [];
    return out;
  };
  // 1 when a message is here; a Promise of 1, or of 0 when none came within WAIT_LIMIT_MS.
  self.prvHelperWait = () => {
    if (inbox.length > 0) return 1;
    return new Promise((resolve) => {
      waiter = resolve;
      setTimeout(() => {
        if (waiter === resolve) {
          waiter = null;
          resolve(0);
        }
      }, WAIT_LIMIT_MS);
    });
  };
  self.prvHelperTell = (forRun, index) => {
    if (forRun === run) toHelper({ prvHelper: 'reached', run: forRun, index });
  };
})();
