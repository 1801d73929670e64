//! Gathering row-level evidence: reading data, changelog and checkpoint rows for the findings
//! that quote them, and for the Ray Data checks, which judge rows.

use std::collections::BTreeSet;

use crate::checks;
use crate::findings::{Clock, Code};
use crate::ray::load::RayCheckpoints;
use crate::rows::identities::{checkpoint_rows, orphan_rows};
use crate::rows::live::TableRef;
use crate::rows::lost;
use crate::warehouse::MAIN_BRANCH;

use super::Judged;

/// Fills `rows` on every lost-changelog finding. `refs` and `judged` are by table, in report
/// order.
pub(super) fn lost_changelog_rows(refs: &[Option<TableRef<'_>>], judged: &mut [Judged]) {
    for (tref, j) in refs.iter().zip(judged.iter_mut()) {
        let Some(tref) = tref else {
            continue;
        };
        for f in j.core.findings.iter_mut() {
            if f.code != Code::LostChangelog {
                continue;
            }
            if let Some(snapshot) = f.snapshot {
                f.rows = lost::lost_changelog_rows(tref, snapshot, &f.files);
            }
        }
    }
}

/// Reads what each paired Ray Data checkpoint's table holds of its ids and judges it; then,
/// on every main branch, the rows only unreferenced data files hold.
pub(super) fn ray_rows(
    ray: &RayCheckpoints,
    refs: &[Option<TableRef<'_>>],
    judged: &mut [Judged],
    clock: &Clock,
) {
    for paired in ray.paired() {
        let (Some(cp), Some(Some(tref))) = (
            ray.checkpoints.get(paired.checkpoint),
            refs.get(paired.table),
        ) else {
            continue;
        };
        let Some(j) = judged.get_mut(paired.table) else {
            continue;
        };
        let rows = checkpoint_rows(tref, &paired.column, &paired.ids);
        let (report, finding) = checks::ray::judge_checkpoint(cp, paired, &rows, tref.timeline);
        j.engines.ray_checkpoints.push(report);
        j.engines
            .ray_checkpoints
            .sort_by(|a, b| a.path.cmp(&b.path));
        j.engines.findings.extend(finding);
    }
    for (i, (tref, j)) in refs.iter().zip(judged.iter_mut()).enumerate() {
        let Some(tref) = tref else {
            continue;
        };
        if tref.timeline.location.branch != MAIN_BRANCH {
            continue; // orphans are root-wide: judged once, against the main branch
        }
        // Files a lost commit explains, and files of snapshots published and later rolled back
        // or fast-forwarded away: neither holds rows a job skipped.
        let mut explained: BTreeSet<String> = j
            .core
            .findings
            .iter()
            .chain(&j.engines.findings)
            .filter(|f| f.code == Code::LostChangelog)
            .flat_map(|f| f.files.iter().cloned())
            .collect();
        explained.extend(checks::files::rolled_back(
            &[tref.timeline],
            tref.root,
            clock.zip_time_offset_minutes,
        ));
        let evidence = orphan_rows(
            tref,
            ray.id_column(i),
            &explained,
            clock.zip_time_offset_minutes,
        );
        if let Some(e) = evidence {
            j.engines.findings.push(checks::ray::orphan_rows(&e));
        }
    }
}
