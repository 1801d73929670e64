//! Small browser helpers of the page: downloads, the clipboard, the URL hash, the theme,
//! performance marks, and reading a dropped folder.

use gloo_events::EventListener;
use gloo_timers::callback::Timeout;
use js_sys::{Array, Promise};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Blob, File, FileSystemDirectoryEntry, FileSystemEntry, FileSystemFileEntry, HtmlAnchorElement,
    Url,
};

use crate::blob::describe_js;

fn window() -> Result<web_sys::Window, String> {
    web_sys::window().ok_or_else(|| "no window".to_string())
}

fn document() -> Result<web_sys::Document, String> {
    window()?
        .document()
        .ok_or_else(|| "no document".to_string())
}

/// Offers `text` as a download named `name` (a Blob URL: nothing leaves the browser).
pub fn download(text: &str, name: &str, mime: &str) -> Result<(), String> {
    let url = crate::blob::text_blob_url(text, mime)?;
    let doc = document()?;
    let a: HtmlAnchorElement = doc
        .create_element("a")
        .map_err(|e| describe_js(&e))?
        .unchecked_into();
    a.set_href(&url);
    a.set_download(name);
    a.set_hidden(true);
    let body = doc.body().ok_or_else(|| "no body".to_string())?;
    body.append_child(&a).map_err(|e| describe_js(&e))?;
    a.click();
    a.remove();
    // Give the browser a moment to start the download before the URL is revoked.
    Timeout::new(10_000, move || {
        let _ = Url::revoke_object_url(&url);
    })
    .forget();
    Ok(())
}

/// Copies `text` to the clipboard.
pub async fn copy_text(text: &str) -> Result<(), String> {
    let clipboard = window()?.navigator().clipboard();
    JsFuture::from(clipboard.write_text(text))
        .await
        .map(|_| ())
        .map_err(|e| describe_js(&e))
}

/// The location's hash, with its `#`.
pub fn location_hash() -> String {
    window()
        .ok()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// Replaces the URL's hash (no navigation, no history entry); empty removes it.
pub fn set_location_hash(hash: &str) -> Result<String, String> {
    let w = window()?;
    let location = w.location();
    let path = location.pathname().map_err(|e| describe_js(&e))?;
    let search = location.search().map_err(|e| describe_js(&e))?;
    let url = if hash.is_empty() {
        format!("{path}{search}")
    } else {
        format!("{path}{search}#{hash}")
    };
    w.history()
        .map_err(|e| describe_js(&e))?
        .replace_state_with_url(&JsValue::NULL, "", Some(&url))
        .map_err(|e| describe_js(&e))?;
    location.href().map_err(|e| describe_js(&e))
}

/// Calls `f` on each `hashchange` of the window, for as long as the page lives.
pub fn on_hash_change(f: impl Fn() + 'static) {
    let Ok(w) = window() else { return };
    EventListener::new(&w, "hashchange", move |_| f()).forget();
}

/// A `performance.mark` (for the benchmark and the upload-to-verdict measure).
pub fn mark(name: &str) {
    if let Some(p) = window().ok().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}

/// A `performance.measure` from the mark `start` to now.
pub fn measure(name: &str, start: &str) {
    if let Some(p) = window().ok().and_then(|w| w.performance()) {
        let _ = p.measure_with_start_mark(name, start);
    }
}

/// Says on the document element (`data-worker`) how far the worker started in advance is:
/// `starting`, `warming`, `warm` or `failed` (for the benchmark, which waits for `warm` the way a
/// user takes a moment to pick a file).
pub fn set_worker_state(state: &str) {
    if let Some(root) = window()
        .ok()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("data-worker", state);
    }
}

/// Where the chosen theme is remembered. index.html's inline script reads it and sets
/// `data-theme` on `<html>` before the first paint; the app only reads that attribute back.
const THEME_KEY: &str = "prv-theme";

/// Whether the page shows the dark theme now: the theme the user chose (`data-theme` on
/// `<html>`, set by index.html's script from what was remembered), else the system's preference.
pub fn shows_dark() -> bool {
    let chosen = document()
        .ok()
        .and_then(|d| d.document_element())
        .and_then(|root| root.get_attribute("data-theme"));
    match chosen.as_deref() {
        Some("dark") => true,
        Some("light") => false,
        _ => window()
            .ok()
            .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
            .is_some_and(|m| m.matches()),
    }
}

/// Shows the dark or the light theme (`data-theme` on `<html>`) and remembers the choice.
/// Raw `web-sys` storage, not `gloo-storage`: gloo stores values as JSON (`"dark"` with its
/// quotes), and index.html's inline script reads the plain word before the app's wasm loads.
pub fn choose_theme(dark: bool) {
    let theme = if dark { "dark" } else { "light" };
    if let Some(root) = document().ok().and_then(|d| d.document_element()) {
        let _ = root.set_attribute("data-theme", theme);
    }
    if let Some(storage) = window().ok().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = storage.set_item(THEME_KEY, theme);
    }
}

/// Fetches a file of the site itself (relative URL) as a `File` named `name`.
pub async fn fetch_own_file(url: &str, name: &str) -> Result<File, String> {
    let response: web_sys::Response = JsFuture::from(window()?.fetch_with_str(url))
        .await
        .map_err(|e| describe_js(&e))?
        .unchecked_into();
    if !response.ok() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let blob: Blob = JsFuture::from(response.blob().map_err(|e| describe_js(&e))?)
        .await
        .map_err(|e| describe_js(&e))?
        .unchecked_into();
    File::new_with_blob_sequence(&Array::of1(&blob), name).map_err(|e| describe_js(&e))
}

/// The files of a dropped directory entry, recursively, with their paths relative to it.
pub async fn read_dropped_folder(
    root: FileSystemDirectoryEntry,
) -> Result<Vec<(String, File)>, String> {
    let mut out = Vec::new();
    let mut stack: Vec<(String, FileSystemDirectoryEntry)> = vec![(String::new(), root)];
    while let Some((prefix, dir)) = stack.pop() {
        let reader = dir.create_reader();
        loop {
            // readEntries gives a batch at a time (100 in Chromium) until an empty one.
            let batch = Promise::new(&mut |resolve, reject| {
                if let Err(e) = reader.read_entries_with_callback_and_callback(&resolve, &reject) {
                    let _ = reject.call1(&JsValue::NULL, &e);
                }
            });
            let batch: Array = JsFuture::from(batch)
                .await
                .map_err(|e| describe_js(&e))?
                .unchecked_into();
            if batch.length() == 0 {
                break;
            }
            for entry in batch.iter() {
                let entry: FileSystemEntry = entry.unchecked_into();
                let path = if prefix.is_empty() {
                    entry.name()
                } else {
                    format!("{prefix}/{}", entry.name())
                };
                if entry.is_directory() {
                    stack.push((path, entry.unchecked_into()));
                } else if entry.is_file() {
                    let entry: FileSystemFileEntry = entry.unchecked_into();
                    let file = Promise::new(&mut |resolve, reject| {
                        entry.file_with_callback_and_callback(&resolve, &reject);
                    });
                    let file: File = JsFuture::from(file)
                        .await
                        .map_err(|e| describe_js(&e))?
                        .unchecked_into();
                    out.push((path, file));
                }
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}
