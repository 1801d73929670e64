//! The snapshot detail panel: every field of the snapshot file, its manifest lists, and the
//! files its delta added and deleted and its changelog files (long lists collapsed).

use std::rc::Rc;

use prv::detail::{FileDetail, SnapshotDetail};
use yew::prelude::*;

use super::export::STYLE;

/// Rows of a file list shown before "Show all".
pub const FILES_SHOWN: usize = 100;
/// Lists up to this long start open.
pub const OPEN_UP_TO: usize = 20;

/// Props of [`SnapshotDetailView`].
#[derive(Properties, Clone)]
pub struct SnapshotDetailProps {
    /// The detail, once the worker sent it.
    #[prop_or_default]
    pub detail: Option<Rc<SnapshotDetail>>,
    /// A detail was asked for and has not arrived yet.
    #[prop_or_default]
    pub loading: bool,
    /// The close button (or Escape inside the panel).
    #[prop_or_default]
    pub on_close: Callback<()>,
}

impl PartialEq for SnapshotDetailProps {
    fn eq(&self, other: &Self) -> bool {
        let same_detail = match (&self.detail, &other.detail) {
            (Some(a), Some(b)) => Rc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same_detail && self.loading == other.loading && self.on_close == other.on_close
    }
}

/// Whether a field names a manifest list or the index manifest.
pub fn is_manifest_field(name: &str) -> bool {
    name.ends_with("ManifestList") || name == "indexManifest"
}

/// `1.5 MiB`.
pub fn human_size(bytes: i64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v.abs() >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    let unit = UNITS.get(u).copied().unwrap_or("B");
    if u == 0 {
        format!("{bytes} {unit}")
    } else {
        format!("{v:.1} {unit}")
    }
}

#[derive(Properties, PartialEq, Clone)]
struct FileListProps {
    title: AttrValue,
    kind: AttrValue,
    files: Rc<Vec<FileDetail>>,
}

#[function_component]
fn FileList(props: &FileListProps) -> Html {
    let show_all = use_state(|| false);
    let n = props.files.len();
    let shown = if *show_all { n } else { n.min(FILES_SHOWN) };
    let partitioned = props.files.iter().any(|f| !f.partition.is_empty());
    let more = {
        let show_all = show_all.clone();
        Callback::from(move |_: MouseEvent| show_all.set(true))
    };
    html! {
        <details class="tl-file-list" data-list={props.kind.clone()} data-count={n.to_string()}
                 open={n > 0 && n <= OPEN_UP_TO}>
            <summary>{ format!("{} ({n})", props.title) }</summary>
            if n == 0 {
                <p class="tl-note">{ "None." }</p>
            } else {
                <div class="tl-files">
                    <table>
                        <thead>
                            <tr>
                                <th scope="col">{ "File" }</th>
                                if partitioned { <th scope="col">{ "Partition" }</th> }
                                <th scope="col" class="tl-num">{ "Bucket" }</th>
                                <th scope="col" class="tl-num">{ "Level" }</th>
                                <th scope="col" class="tl-num">{ "Rows" }</th>
                                <th scope="col" class="tl-num">{ "Size" }</th>
                                <th scope="col">{ "Source" }</th>
                                <th scope="col">{ "Sequence" }</th>
                            </tr>
                        </thead>
                        <tbody>
                            { for props.files.iter().take(shown).map(|f| html! {
                                <tr>
                                    <td><code>{ &f.name }</code></td>
                                    if partitioned { <td>{ &f.partition }</td> }
                                    <td class="tl-num">{ f.bucket }</td>
                                    <td class="tl-num">{ f.level }</td>
                                    <td class="tl-num">{ f.rows }</td>
                                    <td class="tl-num" title={format!("{} bytes", f.size)}>{ human_size(f.size) }</td>
                                    <td>{ f.source.clone().unwrap_or_default() }</td>
                                    <td>{ format!("{}–{}", f.sequence.0, f.sequence.1) }</td>
                                </tr>
                            }) }
                        </tbody>
                    </table>
                    if shown < n {
                        <button type="button" onclick={more}>{ format!("Show all {n}") }</button>
                    }
                </div>
            }
        </details>
    }
}

/// The detail of one snapshot (see the module docs). Renders nothing when there is neither a
/// detail nor a pending request.
#[function_component]
pub fn SnapshotDetailView(props: &SnapshotDetailProps) -> Html {
    let heading = use_node_ref();
    let shown_id = props.detail.as_ref().map(|d| (d.branch.clone(), d.id));
    {
        let heading = heading.clone();
        use_effect_with(shown_id, move |id| {
            if id.is_some() {
                if let Some(h) = heading.cast::<web_sys::HtmlElement>() {
                    let _ = h.focus();
                }
            }
        });
    }
    let close = {
        let on_close = props.on_close.clone();
        Callback::from(move |_: MouseEvent| on_close.emit(()))
    };
    let onkeydown = {
        let on_close = props.on_close.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                e.prevent_default();
                on_close.emit(());
            }
        })
    };
    let Some(d) = props.detail.as_ref() else {
        if props.loading {
            return html! {
                <section class="tl-detail" data-testid="snapshot-detail" aria-busy="true" {onkeydown}>
                    <style data-timeline-styles="">{ STYLE }</style>
                    <p class="tl-note" role="status">{ "Loading the snapshot…" }</p>
                </section>
            };
        }
        return html! {};
    };
    let (manifests, fields): (Vec<_>, Vec<_>) =
        d.fields.iter().partition(|(k, _)| is_manifest_field(k));
    let dl = |items: Vec<&(String, String)>| {
        html! {
            <dl>
                { for items.into_iter().map(|(k, v)| html! {
                    <>
                        <dt>{ k }</dt>
                        <dd>{ v }</dd>
                    </>
                }) }
            </dl>
        }
    };
    html! {
        <section class="tl-detail" data-testid="snapshot-detail" data-snapshot-id={d.id.to_string()}
                 data-branch={d.branch.clone()} aria-busy={props.loading.to_string()}
                 aria-label={format!("Snapshot {} detail", d.id)} {onkeydown}>
            <style data-timeline-styles="">{ STYLE }</style>
            <div class="tl-detail-head">
                <h3 ref={heading} tabindex="-1">
                    { format!("Snapshot {}", d.id) }
                    if d.branch != "main" { { format!(" · branch {}", d.branch) } }
                </h3>
                <button type="button" onclick={close} aria-label="Close the snapshot detail">{ "Close" }</button>
            </div>
            <p class="tl-note"><code>{ &d.file }</code></p>
            { dl(fields) }
            if !manifests.is_empty() {
                <details class="tl-manifests" open=true>
                    <summary>{ format!("Manifest lists ({})", manifests.len()) }</summary>
                    { dl(manifests) }
                </details>
            }
            if !d.complete {
                <p class="tl-note" role="note">
                    { "Some manifests of this snapshot could not be read: the lists below may be incomplete." }
                </p>
            }
            <FileList title="Files added" kind="added" files={Rc::new(d.added.clone())} />
            <FileList title="Files deleted" kind="deleted" files={Rc::new(d.deleted.clone())} />
            <FileList title="Changelog files" kind="changelog" files={Rc::new(d.changelog.clone())} />
            if d.omitted > 0 {
                <p class="tl-note">{ format!("{} more entries not listed.", d.omitted) }</p>
            }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_well() {
        assert_eq!(human_size(512), "512 B");
        assert_eq!(human_size(1536), "1.5 KiB");
        assert_eq!(human_size(3 * 1024 * 1024), "3.0 MiB");
    }

    #[test]
    fn manifest_fields_are_recognised() {
        assert!(is_manifest_field("baseManifestList"));
        assert!(is_manifest_field("changelogManifestList"));
        assert!(is_manifest_field("indexManifest"));
        assert!(!is_manifest_field("commitUser"));
    }
}
