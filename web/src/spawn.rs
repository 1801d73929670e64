//! Starting the analysis worker under the page's Content-Security-Policy.
//!
//! The page's CSP is a `<meta>` tag (a static host may not let us set headers). A worker loaded
//! from its own script URL does not inherit it: it gets the policy of its script's response,
//! which a static host sends without one, so a worker started that way could connect anywhere.
//! A worker started from a `blob:` URL inherits the policy of the document that created it
//! (CSP 3, "initialize a worker's policy container"). So the page makes a tiny blob script that
//! loads Trunk's worker bundle by absolute URL, from the page's own origin, and starts the worker
//! from that: the worker's `fetch`, `importScripts` and wasm compilation are then bound by the
//! same `connect-src 'self'` / `script-src 'self'` as the page.

use web_sys::{Url, Worker};

use crate::blob::describe_js;

/// Trunk's JS glue of the `prv-worker` binary, relative to the page.
pub const WORKER_JS: &str = "./prv-worker.js";
/// The worker's wasm, relative to the page.
pub const WORKER_WASM: &str = "./prv-worker_bg.wasm";

/// Asynchronous Blob reads through JSPI, installed before the glue loads (see the file and
/// [`crate::blob`]); a no-op in a browser without JSPI.
const ASYNC_READS: &str = include_str!("async_reads.js");

/// The bootstrap script of the worker: the async-read shim, then the glue and the wasm by
/// absolute URL (relative URLs would resolve against the `blob:` URL), then the shim's message
/// dispatch.
pub fn bootstrap_script(base: &str) -> Result<String, String> {
    let js = absolute(WORKER_JS, base)?;
    let wasm = absolute(WORKER_WASM, base)?;
    let quote = |s: &str| serde_json::to_string(s).map_err(|e| e.to_string());
    Ok(format!(
        "{ASYNC_READS}\nimportScripts({});wasm_bindgen({}).then(()=>{{if(self.prvInstallDispatch)self.prvInstallDispatch();}});",
        quote(&js)?,
        quote(&wasm)?
    ))
}

fn absolute(relative: &str, base: &str) -> Result<String, String> {
    Url::new_with_base(relative, base)
        .map(|u| u.href())
        .map_err(|e| {
            format!(
                "cannot resolve {relative} against {base}: {}",
                describe_js(&e)
            )
        })
}

/// Starts the analysis worker from a `blob:` bootstrap, so the page's CSP governs it.
pub fn start_worker() -> Result<Worker, String> {
    let base = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.base_uri().ok().flatten())
        .ok_or_else(|| "the page's address is unknown".to_string())?;
    let script = bootstrap_script(&base)?;
    let url = crate::blob::text_blob_url(&script, "text/javascript")?;
    let worker = Worker::new(&url).map_err(|e| describe_js(&e));
    // The URL was resolved when the worker was constructed; it is not needed any more.
    let _ = Url::revoke_object_url(&url);
    worker
}
