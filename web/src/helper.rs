//! The analysis worker's helper worker: manifests decoded ahead on a second core.
//!
//! The CLI decodes manifests ahead on helper threads ([`prv::timeline::prefetch`]); the page's
//! workers share no memory, so the analysis worker starts a helper worker of its own
//! (`helper.js`) that opens the same files, decodes the candidates newest first and posts them
//! in batches ([`prv::timeline::prefetch::relay`]). The analysis takes them through a
//! [`Relay`] over [`PageLink`]: what has arrived is taken without waiting; for a file the
//! helper is decoding, the analysis is suspended (JSPI) until its batch arrives; anything else it
//! decodes itself. The report is the same with or without the helper, byte for byte.
//!
//! Only with JSPI: a synchronous analysis could take nothing from another worker mid-way.

use js_sys::{Array, ArrayBuffer, Reflect, Uint8Array};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use prv::source::Artifact;
use prv::timeline::prefetch::relay::{HelperDecoder, HelperLink, HelperMessage, Relay, RelayStats};
use prv::Limits;

#[wasm_bindgen]
extern "C" {
    // The analysis worker's side (helper.js).
    /// The run the analysis may take help for (0: no helper).
    #[wasm_bindgen(js_name = prvHelperRun)]
    fn helper_run() -> f64;
    /// The helper's messages that have arrived (an Array of `{prvHelper, run, from, buffer}`).
    #[wasm_bindgen(js_name = prvHelperReceive)]
    fn helper_receive() -> Array;
    /// Waits for the helper's next message: 1, or 0 after the time limit. Suspending (JSPI).
    #[wasm_bindgen(js_name = prvHelperWait)]
    fn helper_wait() -> f64;
    /// Lets the helper start on the files of the current run.
    #[wasm_bindgen(js_name = prvHelperGo)]
    fn helper_go();
    /// Tells the helper the analysis has reached `index` (`-2`: the analysis is over).
    #[wasm_bindgen(js_name = prvHelperTell)]
    fn helper_tell(run: f64, index: f64);

    // Both sides.
    /// One turn of the worker's event loop. Suspending (JSPI).
    #[wasm_bindgen(js_name = prvHelperPause)]
    fn helper_pause() -> f64;

    // The helper's side.
    /// How far the analysis of `run` has come: `-1` not told yet, `-2` over, else an index.
    #[wasm_bindgen(js_name = prvHelperReached)]
    fn helper_reached(run: f64) -> f64;
    /// Posts a claim (`bytes` absent) or a batch to the analysis worker.
    #[wasm_bindgen(js_name = prvHelperPost)]
    fn helper_post(run: f64, kind: &str, from: f64, bytes: Option<&[u8]>);
}

/// Whether this worker's global has `name` (helper.js defines its functions only where the
/// helper runs).
fn defined(name: &str) -> bool {
    Reflect::get(&js_sys::global(), &JsValue::from_str(name))
        .map(|v| v.is_function())
        .unwrap_or(false)
}

/// The analysis worker's link to its helper for one run.
pub struct PageLink {
    run: f64,
}

impl PageLink {
    /// The link for the current analysis, if a helper was given its files. Only inside
    /// `prv_dispatch` (JSPI): the link's waits suspend the analysis.
    pub fn for_this_analysis() -> Option<PageLink> {
        if !defined("prvHelperRun") {
            return None;
        }
        let run = helper_run();
        if run > 0.0 {
            helper_go();
        }
        (run > 0.0).then_some(PageLink { run })
    }
}

fn field(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

impl HelperLink for PageLink {
    fn receive(&self) -> Vec<HelperMessage> {
        let mut out = Vec::new();
        for m in helper_receive().iter() {
            let from = field(&m, "from")
                .as_f64()
                .filter(|f| (0.0..=f64::from(u32::MAX)).contains(f))
                .map(|f| f as usize);
            match (field(&m, "prvHelper").as_string().as_deref(), from) {
                (Some("claimed"), Some(from)) => out.push(HelperMessage::Claimed { from }),
                (Some("sent"), Some(from)) => {
                    let batch = field(&m, "buffer")
                        .dyn_into::<ArrayBuffer>()
                        .map(|b| Uint8Array::new(&b).to_vec())
                        .unwrap_or_default();
                    out.push(HelperMessage::Sent { from, batch });
                }
                (Some("stopped"), _) => out.push(HelperMessage::Stopped),
                _ => {}
            }
        }
        out
    }

    fn pause(&self) {
        helper_pause();
    }

    fn wait(&self) -> bool {
        helper_wait() > 0.0
    }

    fn reached(&self, index: usize) {
        let index = if index == usize::MAX {
            -2.0
        } else {
            index as f64
        };
        helper_tell(self.run, index);
    }

    fn now_millis(&self) -> f64 {
        js_sys::Date::now()
    }
}

/// The analysis's prefetch for this analysis, if a helper is working on the same files.
pub fn relay_for(artifact: &Artifact) -> Option<Relay<PageLink>> {
    PageLink::for_this_analysis().map(|link| Relay::new(artifact, link))
}

/// Aim for batches that take about this long to decode: the analysis waits at most one batch
/// for a file the helper has claimed, and each batch costs a message and a turn of the loop.
const BATCH_MS: f64 = 2.0;

/// The helper worker's work for run `run`: decodes the candidates of `artifact` newest first,
/// posting each claim and each batch, until it meets the analysis or the run is over.
pub fn serve(run: f64, artifact: &Artifact, limits: &Limits) {
    let mut decoder = HelperDecoder::new(artifact, limits);
    let mut count = 4usize;
    loop {
        // Let the analysis's latest position in.
        helper_pause();
        let reached = helper_reached(run);
        if reached <= -2.0 || reached.is_infinite() {
            break;
        }
        let reached = (reached >= 0.0).then_some(reached as usize);
        let Some(claimed) = decoder.claim(count, reached) else {
            break;
        };
        let from = claimed.start as f64;
        let files = claimed.len();
        helper_post(run, "claimed", from, None);
        let start = js_sys::Date::now();
        let batch = decoder.decode(claimed);
        let took = js_sys::Date::now() - start;
        helper_post(run, "sent", from, Some(&batch));
        // Next batch: about BATCH_MS of work.
        let per_file = (took / files.max(1) as f64).max(0.001);
        count = ((BATCH_MS / per_file) as usize).clamp(1, 512);
    }
    helper_post(run, "stopped", 0.0, None);
}

/// A helper that could not open the files: tells the analysis at once, so it never waits.
pub fn serve_nothing(run: f64) {
    helper_post(run, "stopped", 0.0, None);
}

thread_local! {
    static LAST: std::cell::Cell<Option<RelayStats>> = const { std::cell::Cell::new(None) };
}

/// Keeps what the relay of the last analysis did, for [`stats_json`].
pub fn record(stats: RelayStats) {
    LAST.with(|l| l.set(Some(stats)));
}

/// What the helper did for the last analysis, as JSON (`null` without a helper): candidates,
/// files that arrived from it, files taken, waits, pauses. Only counters.
pub fn stats_json() -> String {
    match LAST.with(std::cell::Cell::get) {
        None => "null".into(),
        Some(s) => format!(
            r#"{{"candidates":{},"arrived":{},"taken":{},"waits":{},"pauses":{},"badBatches":{}}}"#,
            s.candidates, s.arrived, s.taken, s.waits, s.pauses, s.bad_batches
        ),
    }
}
