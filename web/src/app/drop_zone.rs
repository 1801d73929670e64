//! The drop zone: a real file input (and a folder picker) wrapped by an area files can be
//! dropped on.

use wasm_bindgen::JsValue;
use web_sys::{DragEvent, File, FileList, HtmlInputElement};
use yew::prelude::*;

use crate::protocol::{split_relative_path, Folder, Request};

/// Properties of [`DropZone`].
#[derive(Properties, PartialEq)]
pub struct DropZoneProps {
    /// Called with what the user chose.
    pub on_request: Callback<Request>,
    /// Whether an analysis is running (the zone stays usable: a new choice replaces it).
    pub busy: bool,
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
    let on_drop = {
        let on_request = props.on_request.clone();
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(false);
            let zips = files_of(e.data_transfer().and_then(|dt| dt.files()));
            on_request.emit(Request {
                zips,
                ..Request::default()
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
            <p class="drop-title">{ "Drop a zipped Paimon warehouse here" }</p>
            <p class="drop-or">{ "or" }</p>
            <div class="drop-buttons">
                <label class="button">
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
                <label class="button secondary">
                    { "Choose a folder" }
                    <input
                        class="visually-hidden"
                        type="file"
                        webkitdirectory=true
                        data-testid="folder-input"
                        onchange={on_folder}
                    />
                </label>
            </div>
            <p class="drop-note">{ "Read in this tab only; nothing is uploaded." }</p>
        </section>
    }
}
