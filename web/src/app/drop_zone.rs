//! The drop zone: a real file input (and a folder picker) wrapped by an area files and folders
//! can be dropped on, and the example artifact, one click away.

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DragEvent, File, FileList, FileSystemDirectoryEntry, HtmlInputElement};
use yew::prelude::*;

use super::dom;
use crate::protocol::{split_relative_path, Folder, Request};

/// The example artifact, copied into the site by Trunk (index.html) and fetched from the page's
/// own origin only when asked: a real Java Paimon 0.9 warehouse whose writer died between a
/// checkpoint's APPEND and COMPACT commits (lost changelog).
pub const EXAMPLE_FILE: &str = "java09_d_crash_between_append_and_compact.zip";

/// Properties of [`DropZone`].
#[derive(Properties, PartialEq)]
pub struct DropZoneProps {
    /// Called with what the user chose.
    pub on_request: Callback<Request>,
    /// Whether an analysis is running (the zone stays usable: a new choice replaces it).
    pub busy: bool,
    /// Something went wrong before a request could be made (a folder that cannot be read,
    /// the example that cannot be fetched).
    pub on_error: Callback<String>,
}

fn files_of(list: Option<FileList>) -> Vec<File> {
    let Some(list) = list else {
        return Vec::new();
    };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

fn relative_path(file: &File) -> String {
    js_sys::Reflect::get(file, &JsValue::from_str("webkitRelativePath"))
        .ok()
        .and_then(|v| v.as_string())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| file.name())
}

/// A folder request from the files of a directory picker.
fn folder_request(files: Vec<File>) -> Request {
    if files.is_empty() {
        return Request::default();
    }
    let mut name = String::new();
    let files = files
        .into_iter()
        .map(|f| {
            let (top, rest) = split_relative_path(&relative_path(&f));
            if name.is_empty() {
                name = top;
            }
            (rest, f)
        })
        .collect();
    Request {
        folder: Some(Folder { name, files }),
        ..Request::default()
    }
}

/// The drop zone.
#[function_component(DropZone)]
pub fn drop_zone(props: &DropZoneProps) -> Html {
    let dragging = use_state(|| false);

    let on_zip = {
        let on_request = props.on_request.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let zips = files_of(input.files());
            // Let the same file be chosen again.
            input.set_value("");
            on_request.emit(Request {
                zips,
                ..Request::default()
            });
        })
    };
    let on_folder = {
        let on_request = props.on_request.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let files = files_of(input.files());
            input.set_value("");
            on_request.emit(folder_request(files));
        })
    };
    let reading = use_state(|| None::<String>);
    let on_drop = {
        let on_request = props.on_request.clone();
        let on_error = props.on_error.clone();
        let dragging = dragging.clone();
        let reading = reading.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(false);
            let Some(dt) = e.data_transfer() else {
                return;
            };
            // Entries must be taken while the event lasts; their files are read afterwards.
            let items = dt.items();
            let mut folder = None::<FileSystemDirectoryEntry>;
            let mut skip_files = Vec::new();
            for i in 0..items.length() {
                let Some(item) = items.get(i) else { continue };
                if let Ok(Some(entry)) = item.webkit_get_as_entry() {
                    if entry.is_directory() {
                        skip_files.push(entry.name());
                        if folder.is_none() {
                            folder = Some(entry.unchecked_into());
                        }
                    }
                }
            }
            let zips: Vec<File> = files_of(dt.files())
                .into_iter()
                .filter(|f| !skip_files.contains(&f.name()))
                .collect();
            let Some(folder) = folder else {
                on_request.emit(Request {
                    zips,
                    ..Request::default()
                });
                return;
            };
            let on_request = on_request.clone();
            let on_error = on_error.clone();
            let reading = reading.clone();
            let name = folder.name();
            reading.set(Some(name.clone()));
            wasm_bindgen_futures::spawn_local(async move {
                let result = dom::read_dropped_folder(folder).await;
                reading.set(None);
                match result {
                    Ok(files) => on_request.emit(Request {
                        zips,
                        folder: Some(Folder { name, files }),
                        ..Request::default()
                    }),
                    Err(e) => on_error.emit(format!("The folder {name} could not be read: {e}")),
                }
            });
        })
    };
    let on_example = {
        let on_request = props.on_request.clone();
        let on_error = props.on_error.clone();
        let reading = reading.clone();
        Callback::from(move |_: MouseEvent| {
            let on_request = on_request.clone();
            let on_error = on_error.clone();
            let reading = reading.clone();
            reading.set(Some("the example artifact".into()));
            wasm_bindgen_futures::spawn_local(async move {
                let file = dom::fetch_own_file(&format!("./{EXAMPLE_FILE}"), EXAMPLE_FILE).await;
                reading.set(None);
                match file {
                    Ok(file) => on_request.emit(Request {
                        zips: vec![file],
                        ..Request::default()
                    }),
                    Err(e) => on_error.emit(format!("The example could not be loaded: {e}")),
                }
            });
        })
    };
    let on_drag_over = {
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            if !*dragging {
                dragging.set(true);
            }
        })
    };
    let on_drag_leave = {
        let dragging = dragging.clone();
        Callback::from(move |_: DragEvent| dragging.set(false))
    };

    html! {
        <section
            class={classes!("drop-zone", dragging.then_some("dragging"), props.busy.then_some("busy"))}
            data-testid="drop-zone"
            ondrop={on_drop}
            ondragover={on_drag_over}
            ondragleave={on_drag_leave}
        >
            <p class="drop-title">{ "Drop a zipped Paimon warehouse (or its folder) here" }</p>
            <p class="drop-or">{ "or" }</p>
            <div class="drop-buttons">
                <label class="button" data-testid="artifact-button">
                    { "Choose a .zip" }
                    <input
                        class="visually-hidden"
                        type="file"
                        accept=".zip,application/zip"
                        multiple=true
                        data-testid="artifact-input"
                        onchange={on_zip}
                    />
                </label>
                <label class="button secondary" data-testid="folder-button">
                    { "Choose a folder" }
                    <input
                        class="visually-hidden"
                        type="file"
                        webkitdirectory=true
                        data-testid="folder-input"
                        onchange={on_folder}
                    />
                </label>
                <button type="button" class="button secondary" data-testid="example" onclick={on_example}>
                    { "Try an example" }
                </button>
            </div>
            if let Some(what) = &*reading {
                <p class="drop-reading" role="status">{ format!("Reading {what}…") }</p>
            }
            <p class="drop-note">
                { "Your files never leave this browser: they are read here, in this tab, and \
                   sent nowhere. The example is a real Java Paimon 0.9 warehouse whose writer \
                   died between a checkpoint's two commits." }
            </p>
        </section>
    }
}
