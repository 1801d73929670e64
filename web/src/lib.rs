//! # The Paimon Recovery Validator page
//!
//! Two wasm entry points share this crate:
//!
//! * the page (`src/bin/app.rs`): a Yew app ([`app`]) with a drop zone around a real file input;
//!   it posts the user's `File`s (Blobs, by structured clone, never read on this thread) to
//! * the worker (`src/bin/worker.rs`, [`worker`]): it reads the Blobs with `Blob.slice` +
//!   `FileReaderSync` through [`blob::BlobReader`] (random access, never the whole archive), runs
//!   [`prv::analyze`] and posts progress and the report back ([`protocol`]).
//!
//! Nothing leaves the browser: the worker is loaded from the page's own origin under the page's
//! Content-Security-Policy ([`spawn`]), and the only messages are between the page and its worker.
//!
//! Everything that is plain logic (the message protocol, the read cache, the page state) compiles
//! and is unit-tested natively; what needs a browser is tested with `wasm-bindgen-test` in
//! headless Chromium (`web/tests/`).

pub mod app;
pub mod blob;
pub mod cache;
pub mod filters;
pub mod permalink;
pub mod protocol;
pub mod spawn;
pub mod state;
pub mod timeline;
pub mod worker;

// Links `memcmp`/`bcmp` that compare eight bytes at a time (see `web/mem`): every string and
// slice comparison of the core in wasm goes through them.
#[cfg(target_arch = "wasm32")]
use prv_wasm_mem as _;
